//! Settings and the values made from their text: a setting of a product type is read by the
//! type's static factory (`FileSize.valueOf("50MB")`), which configurators call by reflection.

mod support;
use support::{ask_stored, assert_citations_resolve, index_repo, symbols};

/// A setting of a product type is made from its configured text by the type's static factory,
/// which no call edge reaches (the configurator calls it by reflection): asked how the text
/// turns into a value, the answer names the factory right after the setting.
#[test]
fn a_settings_text_is_traced_to_its_types_value_factory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("roll");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/roll/{p}"), text.into()));
    write(
        "ByteCount.java",
        r#"package com.roll;

/** An amount of bytes. */
public class ByteCount {
    private final long amount;

    public ByteCount(long amount) {
        this.amount = amount;
    }

    /** Reads "10", "10kb" or "10 MB". */
    public static ByteCount valueOf(String text) {
        String t = text.trim().toLowerCase();
        long factor = 1;
        if (t.endsWith("kb")) {
            factor = 1024;
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("mb")) {
            factor = 1024 * 1024;
            t = t.substring(0, t.length() - 2);
        }
        return new ByteCount(Long.parseLong(t.trim()) * factor);
    }

    public long getAmount() {
        return amount;
    }
}
"#,
    );
    write(
        "SizeTrigger.java",
        r#"package com.roll;

/** Rolls the log file over when it grows past its maximum size. */
public class SizeTrigger {
    ByteCount maxLogSize = new ByteCount(10 * 1024 * 1024);

    public void setMaxLogSize(ByteCount maxLogSize) {
        this.maxLogSize = maxLogSize;
    }

    /** Whether the log file has grown past the maximum size. */
    public boolean isTriggering(long fileLength) {
        return fileLength >= maxLogSize.getAmount();
    }
}
"#,
    );
    write(
        "ArchiveTrigger.java",
        r#"package com.roll;

/** Rolls archives over by size too. */
public class ArchiveTrigger {
    ByteCount maxLogSize;

    public void setMaxLogSize(ByteCount maxLogSize) {
        this.maxLogSize = maxLogSize;
    }

    /** Starts the trigger: without a maximum log size there is nothing to roll over on. */
    public void start() {
        if (maxLogSize == null) {
            throw new IllegalStateException("maxLogSize is not set");
        }
    }
}
"#,
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "In the config we set maxLogSize to \"50MB\". Where does that string get turned into a \
         number of bytes?",
    );
    let cited = symbols(&a);
    let at = cited.iter().position(|s| s == "ByteCount.valueOf");
    assert!(
        at.is_some_and(|k| k < 3),
        "the factory that reads the text is among the first answers: {cited:?}"
    );
    assert_citations_resolve(&a, &root);
}

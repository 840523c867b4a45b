//! Chinese on a fresh install: no dictionary file anywhere, no variable set, and a Chinese question
//! is still translated (CC-CEDICT is built in), and the answer says with what.

mod support;

use support::*;

#[test]
fn a_fresh_install_translates_a_chinese_question_with_the_built_in_dictionary() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    copy_shop(&repo);
    let idx = tmp.path().join("idx");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let fresh = |args: &[&str]| {
        let o = codemap()
            .env_remove("CODEMAP_CEDICT")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", &home)
            .arg("--index-dir")
            .arg(&idx)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        o
    };
    fresh(&["index", repo.to_str().unwrap(), "--quiet"]);
    // No Chinese in the code for it: only the translation finds the callback handler.
    let o = fresh(&["ask", "--json", "支付回调是在哪里处理的?"]);
    let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = a["notes"].to_string();
    let from_file = std::path::Path::new("/usr/share/codemap/cedict_ts.u8").is_file();
    let source = if from_file {
        "CC-CEDICT from /usr/share/codemap/cedict_ts.u8"
    } else {
        "CC-CEDICT (built in)"
    };
    assert!(
        notes.contains(&format!(
            "Chinese words were translated with {source}: pay, callback"
        )),
        "{notes}"
    );
    assert!(!notes.contains("searched as written"), "{notes}");
    let first5: Vec<String> = a["citations"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
        .map(|c| c["symbol"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        first5.iter().any(|s| s.ends_with("handleCallback")),
        "{first5:?}"
    );
    let o = fresh(&["status"]);
    assert!(
        stdout(&o).contains(&format!("Chinese questions: translated with {source}")),
        "{}",
        stdout(&o)
    );
}

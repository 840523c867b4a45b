//! What is embedded for a chunk: a short prose-like text the sentence models can read within
//! their 128–256 tokens. The header's file path and import list would eat that budget, so only
//! the scope and signature are kept, followed by the scope's identifiers spelled out as words
//! (`byteCountToDisplaySize` → `byte count to display size`) and the code with comment markers and
//! indentation removed (Javadoc is often the best paraphrase target).

use indexer::analyzer::split_identifier;

/// Bump when [`chunk_text`] changes: stored vectors of an older recipe are then recomputed.
pub const RECIPE: u32 = 1;

/// Characters kept; more than either model reads (they truncate by tokens after this).
pub const MAX_CHARS: usize = 1600;

/// The text embedded for a chunk with this contextual header and source text.
pub fn chunk_text(header: &str, code: &str) -> String {
    let mut scope = "";
    let mut signature = "";
    let mut file = "";
    for line in header.lines() {
        let line = line.trim_start_matches("//").trim();
        if let Some(s) = line.strip_prefix("scope:") {
            scope = s.trim();
        } else if let Some(s) = line.strip_prefix("signature:") {
            signature = s.trim();
        } else if let Some(s) = line.strip_prefix("file:") {
            file = s.split_whitespace().next().unwrap_or("");
        }
    }
    // `org.apache.commons.io.FileUtils > copyFile` → `FileUtils > copyFile`.
    let short_scope: Vec<&str> = scope
        .split(" > ")
        .map(|part| part.rsplit('.').next().unwrap_or(part))
        .collect();
    let short_scope = short_scope.join(" > ");
    let mut out = String::new();
    if short_scope.is_empty() {
        // Text without a scope (a config file): its name says what it is.
        out.push_str(file.rsplit('/').next().unwrap_or(file));
    } else {
        out.push_str(&short_scope);
    }
    if !signature.is_empty() {
        out.push('\n');
        out.push_str(signature);
    }
    let words: Vec<String> = short_scope
        .split(" > ")
        .flat_map(split_identifier)
        .collect();
    if words.len() > 1 {
        out.push('\n');
        out.push_str(&words.join(" "));
    }
    out.push('\n');
    for line in code.lines() {
        let line = line.trim();
        let line = line
            .trim_start_matches("/**")
            .trim_start_matches("/*")
            .trim_end_matches("*/")
            .trim_start_matches('*')
            .trim_start_matches("//")
            .trim();
        if line.is_empty()
            || line == "}"
            || line == "{"
            || line.starts_with("<p>") && line.len() == 3
        {
            continue;
        }
        out.push_str(line);
        out.push(' ');
        if out.len() >= MAX_CHARS {
            break;
        }
    }
    truncate(&mut out, MAX_CHARS);
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if out.trim().is_empty() {
        out.push('.');
    }
    out
}

fn truncate(s: &mut String, max: usize) {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
}

/// Cache key of an embedded text (with the model id): recipe and text, not path or lines, so a
/// chunk that only moved keeps its vector.
pub fn text_hash(text: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&RECIPE.to_le_bytes());
    h.update(text.as_bytes());
    h.finalize().to_hex()[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "// file: src/main/java/org/apache/commons/io/FileUtils.java  module: commons-io\n// scope: org.apache.commons.io.FileUtils > byteCountToDisplaySize\n// signature: public static String byteCountToDisplaySize(final long size)\n// imports: java.math.BigInteger";

    #[test]
    fn chunk_text_keeps_scope_signature_words_and_code_without_decoration() {
        let code = "    /**\n     * Returns a human-readable version of the file size.\n     */\n    public static String byteCountToDisplaySize(final long size) {\n        return x;\n    }\n";
        let t = chunk_text(HEADER, code);
        assert_eq!(
            t,
            "FileUtils > byteCountToDisplaySize\npublic static String byteCountToDisplaySize(final long size)\nfile utils byte count to display size\nReturns a human-readable version of the file size. public static String byteCountToDisplaySize(final long size) { return x;"
        );
        assert!(!t.contains("imports"));
    }

    #[test]
    fn chunk_text_is_bounded_and_never_empty() {
        let long = "x = 1;\n".repeat(2000);
        assert!(chunk_text(HEADER, &long).len() <= MAX_CHARS);
        assert_eq!(chunk_text("", ""), ".");
        assert_eq!(
            chunk_text("// file: conf/app.yml  module: app", "a: b"),
            "app.yml\na: b"
        );
        let wide = "é".repeat(2000);
        assert!(chunk_text(HEADER, &wide).len() <= MAX_CHARS);
    }

    #[test]
    fn text_hash_ignores_nothing_but_is_stable() {
        assert_eq!(text_hash("a"), text_hash("a"));
        assert_ne!(text_hash("a"), text_hash("b"));
        assert_eq!(text_hash("a").len(), 32);
    }
}

//! What each registered language supports, and the support matrix docs/languages.md shows
//! (generated from [`super::REGISTRY`]; a test keeps the page equal to [`matrix`]).

/// One language's column of the matrix.
#[derive(Debug, Clone, Copy)]
pub struct Support {
    /// Declarations with exact ranges.
    pub symbols: bool,
    /// Imports resolved to files of the repository.
    pub imports: bool,
    /// Call sites resolved to their targets (the call graph).
    pub calls: bool,
    /// Framework facts turned into edges (routes, listeners, tables, configuration…).
    pub frameworks: &'static [&'static str],
    /// What pasted failure output is located like a stack trace ("" when none).
    pub traces: &'static str,
}

/// The support matrix as a Markdown table, one row per registered language.
pub fn matrix() -> String {
    let mut out = String::from(
        "| language | extensions | symbols | imports | calls | frameworks | traces |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let yes = |b: bool| if b { "yes" } else { "no" };
    for spec in super::REGISTRY {
        let s = &spec.support;
        let exts: Vec<String> = spec
            .extensions
            .iter()
            .map(|e| format!("`.{e}`"))
            .chain(spec.file_names.iter().map(|n| format!("`{n}`")))
            .collect();
        let frameworks = if s.frameworks.is_empty() {
            "—".to_string()
        } else {
            s.frameworks.join(", ")
        };
        let traces = if s.traces.is_empty() { "—" } else { s.traces };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            spec.language,
            exts.join(" "),
            yes(s.symbols),
            yes(s.imports),
            yes(s.calls),
            frameworks,
            traces,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    /// docs/languages.md carries the matrix between markers; regenerate it with
    /// `CODEMAP_BLESS=1 cargo test -p indexer support_matrix`.
    #[test]
    fn support_matrix_in_the_docs_is_the_registry() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/languages.md");
        let page = std::fs::read_to_string(&path).expect("docs/languages.md");
        let (begin, end) = ("<!-- matrix:begin -->\n", "<!-- matrix:end -->");
        let from = page.find(begin).expect("matrix:begin marker") + begin.len();
        let to = page.find(end).expect("matrix:end marker");
        let want = super::matrix();
        if std::env::var_os("CODEMAP_BLESS").is_some() {
            let fresh = format!("{}{want}{}", &page[..from], &page[to..]);
            std::fs::write(&path, fresh).unwrap();
            return;
        }
        assert_eq!(
            &page[from..to],
            want,
            "docs/languages.md is stale: CODEMAP_BLESS=1 cargo test -p indexer support_matrix"
        );
    }
}

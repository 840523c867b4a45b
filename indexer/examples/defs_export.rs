//! Exports method and constructor definitions of a Java source tree as JSONL for
//! `/work/shared/eval/score_defs.py`:
//!
//! ```sh
//! cargo run -p indexer --example defs_export -- /work/corpora/commons-io-2.11.0 /tmp/defs.jsonl
//! python3 /work/shared/eval/score_defs.py /work/shared/eval/defs-commons-io.jsonl /tmp/defs.jsonl
//! ```
//!
//! One record per symbol: `{"file", "symbol", "kind", "line", "end_line"}` with `symbol` the
//! qualified name and `line` the name line. Types, fields and constants are written too; the
//! scorer ignores their kinds. Members of anonymous classes (`org.x.Outer.1.run`, which the scorer
//! reads as `Outer.run`) are left out, as the scorer's oracle leaves them out, unless
//! `--include-anonymous` is given (then score with `--include-anonymous` too).

use indexer::RepoPath;
use indexer::lang::{self, ParseLimits};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let include_anonymous = args.iter().any(|a| a == "--include-anonymous");
    args.retain(|a| a != "--include-anonymous");
    let [root, out] = &args[..] else {
        anyhow::bail!("usage: defs_export [--include-anonymous] <corpus root> <out.jsonl>");
    };
    let root = PathBuf::from(root);
    let mut files = Vec::new();
    let mut dirs = vec![root.join("src/main/java")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "java") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    let limits = ParseLimits::default();
    let (mut symbols, mut degraded) = (0, 0);
    for file in &files {
        let rel = relative(&root, file);
        let Some(repo_path) = RepoPath::new(&rel) else {
            continue;
        };
        let src = std::fs::read(file)?;
        let analysis = lang::analyze(lang::java::LANGUAGE, &repo_path, "corpus", &src, &limits);
        degraded += usize::from(analysis.degraded.is_some());
        for s in &analysis.symbols {
            let anonymous = s
                .qualified_name
                .split('.')
                .any(|part| part.bytes().all(|b| b.is_ascii_digit()));
            if anonymous && !include_anonymous {
                continue;
            }
            let record = serde_json::json!({
                "file": rel,
                "symbol": s.qualified_name,
                "kind": s.kind.as_str(),
                "line": s.name_line,
                "end_line": s.end_line,
            });
            writeln!(w, "{record}")?;
            symbols += 1;
        }
    }
    w.flush()?;
    eprintln!(
        "{} files, {symbols} symbols, {degraded} degraded -> {out}",
        files.len()
    );
    Ok(())
}

fn relative(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap_or(file);
    rel.to_string_lossy().replace('\\', "/")
}

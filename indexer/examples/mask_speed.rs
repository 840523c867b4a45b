//! Throughput of `secrets::mask` over a tree of files (bench/secrets.sh runs it): files, MB,
//! seconds, MB/s and how many files had something masked. With `SHOW=1`, the first two changed
//! lines of each masked file, to review what the rules catch.

use std::borrow::Cow;

fn main() {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: mask_speed DIR");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    for e in ignore::WalkBuilder::new(&root).build().flatten() {
        if !e.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = e.path().strip_prefix(&root).unwrap_or(e.path());
        if let (Some(p), Ok(b)) = (
            indexer::RepoPath::new(&rel.to_string_lossy()),
            std::fs::read(e.path()),
        ) && b.len() <= indexer::walk::DEFAULT_MAX_FILE_SIZE as usize
        {
            files.push((p, b));
        }
    }
    let total: usize = files.iter().map(|f| f.1.len()).sum();
    let started = std::time::Instant::now();
    let masked = files
        .iter()
        .filter(|(p, b)| matches!(indexer::secrets::mask(p, b), Cow::Owned(_)))
        .count();
    let secs = started.elapsed().as_secs_f64();
    if std::env::var("SHOW").is_ok() {
        for (p, b) in &files {
            if let Cow::Owned(m) = indexer::secrets::mask(p, b) {
                let (a, m) = (String::from_utf8_lossy(b), String::from_utf8_lossy(&m));
                for (x, y) in a.lines().zip(m.lines()).filter(|(x, y)| x != y).take(2) {
                    let cut = |s: &str| s.chars().take(140).collect::<String>();
                    println!("{p}\n  - {}\n  + {}", cut(x), cut(y));
                }
            }
        }
    }
    println!(
        "{} files, {:.1} MB, {:.3} s, {:.0} MB/s, {} masked",
        files.len(),
        total as f64 / 1e6,
        secs,
        total as f64 / 1e6 / secs,
        masked
    );
}

//! Regression gate: the public QA eval (tests/eval/qa-public.jsonl, commons-io) must keep hit@5 and
//! file hit@5 above the floor in tests/eval/floor.json. The corpus is a Debian source package that
//! `.ci/run` unpacks and names in `CODEMAP_QA_CORPUS`; without it the gate says it was skipped.
//! Scoring follows shared/eval/score.py: a hit is a top-k citation with the gold path and an
//! overlapping line range.

mod support;
use std::collections::HashMap;
use std::io::Write;
use support::*;

#[derive(serde::Deserialize)]
struct Gold {
    path: String,
    start_line: u64,
    end_line: u64,
}

#[test]
fn public_qa_eval_stays_above_the_floor() {
    let Ok(corpus) = std::env::var("CODEMAP_QA_CORPUS") else {
        indexer::testing::skip(
            "qa-corpus",
            "public_qa_eval_stays_above_the_floor: CODEMAP_QA_CORPUS is not set (.ci/run unpacks commons-io 2.11.0 and sets it)",
        );
        return;
    };
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/eval");
    let floor: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(here.join("floor.json")).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let o = run(&idx, &["index", &corpus, "--quiet"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let mut questions = String::new();
    let mut gold: HashMap<String, Vec<Gold>> = HashMap::new();
    for line in std::fs::read_to_string(here.join("qa-public.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        questions.push_str(&serde_json::json!({"id": id, "question": v["question"]}).to_string());
        questions.push('\n');
        gold.insert(id, serde_json::from_value(v["gold"].clone()).unwrap());
    }
    let qfile = tmp.path().join("q.jsonl");
    std::fs::write(&qfile, questions).unwrap();
    let o = run(&idx, &["ask", "--batch", qfile.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let (mut hits, mut file_hits) = (0usize, 0usize);
    let mut answered: HashMap<String, Vec<(String, u64, u64)>> = HashMap::new();
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let cites = v["citations"]
            .as_array()
            .unwrap()
            .iter()
            .take(5)
            .map(|c| {
                let s = c["start_line"].as_u64().unwrap_or(0);
                (
                    c["path"]
                        .as_str()
                        .unwrap_or("")
                        .trim_start_matches("./")
                        .to_string(),
                    s,
                    c["end_line"].as_u64().unwrap_or(s),
                )
            })
            .collect();
        answered.insert(v["id"].as_str().unwrap().to_string(), cites);
    }
    for (id, g) in &gold {
        let cites = answered.get(id).cloned().unwrap_or_default();
        // Every cited range must exist in the corpus (citations are facts).
        assert_hits_resolve(std::path::Path::new(&corpus), &cites);
        if cites.iter().any(|(p, s, e)| {
            g.iter()
                .any(|g| &g.path == p && *s <= g.end_line && g.start_line <= *e)
        }) {
            hits += 1;
        }
        if cites.iter().any(|(p, _, _)| g.iter().any(|g| &g.path == p)) {
            file_hits += 1;
        }
    }
    let n = gold.len() as f64;
    let (h5, f5) = (hits as f64 / n, file_hits as f64 / n);
    let _ = writeln!(
        std::io::stderr(),
        "public QA eval: hit@5 {h5:.3}, file hit@5 {f5:.3} over {} questions",
        gold.len()
    );
    assert!(
        h5 >= floor["hit_at_5"].as_f64().unwrap(),
        "hit@5 {h5:.3} fell below the floor"
    );
    assert!(
        f5 >= floor["file_hit_at_5"].as_f64().unwrap(),
        "file hit@5 {f5:.3} fell below the floor"
    );
}

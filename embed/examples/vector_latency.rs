//! Warm cost of the vector leg, per question: embedding the question, and the exact search over
//! the stored vectors of the snapshot; plus the same search over a synthetic matrix with one row
//! per chunk of the snapshot, for when only part of it is embedded (the search cost depends only
//! on the row count). Prints p50 / p95 / max in ms, and the one-off load of the matrix.
//!
//! Usage: vector_latency INDEX_DIR QUESTIONS.txt [pocket|minilm:DIR]

use embed::{EmbedderSpec, Remote};
use indexer::store::{EmbeddedIndex, IndexDir};
use query::{DenseVectors, FakeEmbedder};
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: vector_latency INDEX_DIR QUESTIONS.txt [pocket|minilm:DIR]".into());
    }
    let dir = Path::new(&args[1]);
    let questions: Vec<String> = std::fs::read_to_string(&args[2])?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let spec: EmbedderSpec = args.get(3).map_or("pocket", |s| s.as_str()).parse()?;
    let remote = Remote {
        url: None,
        model: String::new(),
        dim: 0,
        key_env: None,
        timeout_secs: 60.0,
    };
    let index = EmbeddedIndex::open(&IndexDir::new(dir))?;
    let t = Instant::now();
    let embedder = spec.open(&remote)?.ok_or("no embedder")?;
    let model_ms = ms(t);
    let t = Instant::now();
    let (leg, chunks) =
        embed::load_leg(dir, &index.catalog, embedder)?.ok_or("no vectors for this model")?;
    let load_ms = ms(t);
    let probe = spec.open(&remote)?.ok_or("no embedder")?;

    // Synthetic unit rows, one per chunk of the snapshot (xorshift: no dependency).
    let dim = probe.dim();
    let mut synth = DenseVectors::new(Box::new(FakeEmbedder { dim }));
    let mut s: u64 = 0x9e3779b97f4a7c15;
    let mut row = vec![0f32; dim];
    for i in 0..chunks {
        for x in row.iter_mut() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            *x = (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
        }
        query::embed::normalize(&mut row);
        synth.push(i.to_string(), &row);
    }

    let (mut embed_t, mut search_t, mut synth_t) = (Vec::new(), Vec::new(), Vec::new());
    for q in &questions {
        let t = Instant::now();
        let v = probe.embed(&[query::embed::query_text(q)])?;
        embed_t.push(ms(t));
        let t = Instant::now();
        std::hint::black_box(leg.nearest_to(&v[0], 80));
        search_t.push(ms(t));
        let t = Instant::now();
        std::hint::black_box(synth.nearest_to(&v[0], 80));
        synth_t.push(ms(t));
    }
    println!(
        "model {}: load {model_ms:.0} ms; matrix of {} of {chunks} chunks loaded in {load_ms:.0} ms ({:.0} MB)",
        leg.model_id(),
        leg.len(),
        (leg.len() * dim * 4) as f64 / 1e6
    );
    for (name, t) in [
        ("embed the question", &mut embed_t),
        ("search the stored vectors", &mut search_t),
        ("search one row per chunk (synthetic)", &mut synth_t),
    ] {
        t.sort_by(f64::total_cmp);
        let pct = |p: f64| t[((t.len() as f64 * p).ceil() as usize).clamp(1, t.len()) - 1];
        println!(
            "  {name:<40} p50 {:6.2}  p95 {:6.2}  max {:6.2} ms  ({} questions)",
            pct(0.5),
            pct(0.95),
            t[t.len() - 1],
            t.len()
        );
    }
    Ok(())
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

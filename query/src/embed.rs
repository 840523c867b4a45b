//! Embeddings for the vector leg: the [`Embedder`] trait, an OpenAI-compatible `/embeddings`
//! client, a deterministic fake for tests, and the [`VectorLeg`] the retriever asks for nearest
//! chunks, with [`DenseVectors`], an exact (brute-force) cosine search over a contiguous matrix.
//! Vectors are computed in a separate step (`codemap embed`, the `embed` crate holds the local
//! models and the store); without them the leg is simply absent.

use crate::QueryError;
use crate::llm::{LlmError, http_client, post_json};
use serde::Deserialize;

/// Why texts could not be embedded.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A remote embedding endpoint failed.
    #[error(transparent)]
    Endpoint(#[from] LlmError),
    /// A local model could not be loaded or run (message names the model and the cause).
    #[error("embedding model: {0}")]
    Model(String),
}

/// Turns texts into vectors of a fixed dimension.
///
/// Contract: the same text gives the same vector; `embed` returns one vector per input, in order,
/// each of length `dim()`, L2-normalised (cosine = dot product). Empty input gives empty output.
pub trait Embedder {
    fn dim(&self) -> usize;
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Model identity, stored beside vectors so a model change forces re-embedding.
    fn model_id(&self) -> String;
}

/// An OpenAI-compatible `POST {base_url}/embeddings` endpoint.
pub struct OpenAiEmbedder {
    base_url: String,
    model: String,
    dim: usize,
    key: Option<String>,
    retries: u32,
    timeout_secs: f64,
    client: reqwest::blocking::Client,
}

impl OpenAiEmbedder {
    pub fn new(
        base_url: &str,
        model: &str,
        dim: usize,
        api_key_env: Option<&str>,
        timeout_secs: f64,
    ) -> Result<Self, LlmError> {
        let key = match api_key_env {
            Some(var) => {
                Some(std::env::var(var).map_err(|_| LlmError::MissingKey(var.to_string()))?)
            }
            None => None,
        };
        let client = http_client(timeout_secs).map_err(|e| LlmError::Unavailable {
            url: base_url.to_string(),
            detail: e.to_string(),
        })?;
        Ok(OpenAiEmbedder {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            dim,
            key,
            retries: 2,
            timeout_secs,
            client,
        })
    }
}

#[derive(Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingItem>,
}
#[derive(Deserialize)]
struct EmbeddingItem {
    index: usize,
    embedding: Vec<f32>,
}

impl Embedder for OpenAiEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let url = format!("{}/embeddings", self.base_url);
        let body = serde_json::json!({ "model": self.model, "input": texts });
        let text = post_json(
            &self.client,
            &url,
            self.key.as_deref(),
            &body,
            self.retries,
            self.timeout_secs,
        )?;
        let mut parsed: EmbeddingResponse =
            serde_json::from_str(&text).map_err(|e| LlmError::BadResponse {
                url: url.clone(),
                detail: e.to_string(),
            })?;
        parsed.data.sort_by_key(|d| d.index);
        if parsed.data.len() != texts.len()
            || parsed.data.iter().any(|d| d.embedding.len() != self.dim)
        {
            return Err(LlmError::BadResponse {
                url,
                detail: format!("expected {} vectors of dimension {}", texts.len(), self.dim),
            }
            .into());
        }
        // Not every server normalises; cosine needs unit vectors.
        Ok(parsed
            .data
            .into_iter()
            .map(|d| {
                let mut v = d.embedding;
                normalize(&mut v);
                v
            })
            .collect())
    }

    fn model_id(&self) -> String {
        format!("openai-compatible:{}:{}", self.model, self.dim)
    }
}

/// Deterministic bag-of-words hashing embedder: texts sharing words get close vectors. For tests.
#[derive(Clone)]
pub struct FakeEmbedder {
    pub dim: usize,
}

impl Embedder for FakeEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; self.dim];
                for w in crate::terms::analyze(t) {
                    let h = blake_like(&w);
                    v[(h as usize) % self.dim] += 1.0;
                }
                normalize(&mut v);
                v
            })
            .collect())
    }

    fn model_id(&self) -> String {
        format!("fake:{}", self.dim)
    }
}

/// FNV-1a: stable across runs and platforms.
fn blake_like(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// Nearest chunks to a question, for the retriever.
pub trait VectorLeg {
    /// Chunk ids with similarity, best first, at most `k`.
    fn nearest(&self, question: &str, k: usize) -> Result<Vec<(String, f32)>, QueryError>;
    /// What answers report about the leg (model, size).
    fn describe(&self) -> String {
        "vectors".to_string()
    }
    /// The leg's weight in rank fusion (the text legs count 1.0).
    fn weight(&self) -> f32 {
        1.0
    }
}

/// Vectors held in memory, searched exhaustively (cosine).
pub struct InMemoryVectors<E: Embedder> {
    pub embedder: E,
    pub items: Vec<(String, Vec<f32>)>,
}

impl<E: Embedder> InMemoryVectors<E> {
    /// Embeds `(chunk id, text)` pairs.
    pub fn build(embedder: E, docs: &[(String, String)]) -> Result<Self, EmbedError> {
        let texts: Vec<String> = docs.iter().map(|(_, t)| t.clone()).collect();
        let vecs = embedder.embed(&texts)?;
        Ok(InMemoryVectors {
            embedder,
            items: docs.iter().map(|(id, _)| id.clone()).zip(vecs).collect(),
        })
    }
}

impl<E: Embedder> VectorLeg for InMemoryVectors<E> {
    fn nearest(&self, question: &str, k: usize) -> Result<Vec<(String, f32)>, QueryError> {
        let q = self
            .embedder
            .embed(&[question.to_string()])
            .map_err(QueryError::Embed)?;
        let q = &q[0];
        let mut scored: Vec<(String, f32)> = self
            .items
            .iter()
            .map(|(id, v)| (id.clone(), v.iter().zip(q).map(|(a, b)| a * b).sum::<f32>()))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(k);
        Ok(scored)
    }
}

/// Vectors of one model in one contiguous row-major matrix, searched exactly: one dot product per
/// row. 100k chunks × 384 dimensions is 150 MB and about 40M multiply-adds per question (tens of
/// ms); an ANN index is only worth it beyond that.
pub struct DenseVectors {
    embedder: Box<dyn Embedder>,
    ids: Vec<String>,
    dim: usize,
    matrix: Vec<f32>,
    weight: f32,
}

impl DenseVectors {
    /// An empty matrix for `embedder`'s vectors; rows of another dimension are refused by `push`.
    pub fn new(embedder: Box<dyn Embedder>) -> DenseVectors {
        let dim = embedder.dim();
        DenseVectors {
            embedder,
            ids: Vec::new(),
            dim,
            matrix: Vec::new(),
            weight: 1.0,
        }
    }

    /// Sets the leg's fusion weight (a weaker model counts less).
    pub fn with_weight(mut self, weight: f32) -> DenseVectors {
        self.weight = weight;
        self
    }

    /// Adds a row; returns false (and adds nothing) if its dimension is wrong.
    pub fn push(&mut self, id: String, v: &[f32]) -> bool {
        if v.len() != self.dim {
            return false;
        }
        self.ids.push(id);
        self.matrix.extend_from_slice(v);
        true
    }

    /// A matrix from rows read back whole (a cache file); `None` when `matrix` does not hold
    /// exactly one row of `embedder`'s dimension per id.
    pub fn from_rows(
        embedder: Box<dyn Embedder>,
        ids: Vec<String>,
        matrix: Vec<f32>,
    ) -> Option<DenseVectors> {
        let dim = embedder.dim();
        (dim > 0 && matrix.len() == ids.len() * dim).then(|| DenseVectors {
            embedder,
            ids,
            dim,
            matrix,
            weight: 1.0,
        })
    }

    /// The rows as kept: ids, and the row-major matrix of `dim()` columns.
    pub fn rows(&self) -> (&[String], &[f32]) {
        (&self.ids, &self.matrix)
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn model_id(&self) -> String {
        self.embedder.model_id()
    }

    /// Rows nearest to `q` (a unit vector), best first, at most `k`; ties break on id.
    pub fn nearest_to(&self, q: &[f32], k: usize) -> Vec<(String, f32)> {
        if q.len() != self.dim || k == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = self
            .matrix
            .chunks_exact(self.dim)
            .enumerate()
            .map(|(i, row)| (i, dot(row, q)))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.ids[a.0].cmp(&self.ids[b.0]))
        };
        if scored.len() > k {
            scored.select_nth_unstable_by(k - 1, by_score);
            scored.truncate(k);
        }
        scored.sort_by(by_score);
        scored
            .into_iter()
            .map(|(i, s)| (self.ids[i].clone(), s))
            .collect()
    }
}

/// The text embedded for a question: the question, then the words of the identifiers it writes
/// (`getBaseName` → `get base name`), since sentence models read prose and chunk texts carry the
/// same words (see the `embed` crate's chunk text).
pub fn query_text(question: &str) -> String {
    let mut words = Vec::new();
    for token in question.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
        let parts = indexer::analyzer::split_identifier(token);
        if parts.len() > 1 {
            words.extend(parts);
        }
    }
    if words.is_empty() {
        question.to_string()
    } else {
        format!("{question}\n{}", words.join(" "))
    }
}

/// Dot product in four independent lanes, which the compiler vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum::<f32>() + tail
}

impl VectorLeg for DenseVectors {
    fn nearest(&self, question: &str, k: usize) -> Result<Vec<(String, f32)>, QueryError> {
        if self.is_empty() || question.trim().is_empty() {
            return Ok(Vec::new());
        }
        let q = self.embedder.embed(&[query_text(question)])?;
        Ok(q.first().map(|q| self.nearest_to(q, k)).unwrap_or_default())
    }

    fn describe(&self) -> String {
        format!(
            "{} ({} chunks, weight {})",
            self.model_id(),
            self.len(),
            self.weight
        )
    }

    fn weight(&self) -> f32 {
        self.weight
    }
}

/// The vector leg in team mode: the question is embedded here, and Meilisearch, holding the
/// chunks' vectors (`codemap embed --backend meilisearch`), returns the nearest chunks within
/// the repository scope. Fusion stays the retriever's RRF, as with [`DenseVectors`].
pub struct ServerVectors<'s> {
    embedder: Box<dyn Embedder>,
    store: &'s indexer::store::meilisearch::MeiliStore,
    weight: f32,
}

impl<'s> ServerVectors<'s> {
    pub fn new(
        embedder: Box<dyn Embedder>,
        store: &'s indexer::store::meilisearch::MeiliStore,
    ) -> ServerVectors<'s> {
        ServerVectors {
            embedder,
            store,
            weight: 1.0,
        }
    }

    /// The leg's weight in rank fusion, as for [`DenseVectors::with_weight`].
    pub fn with_weight(mut self, weight: f32) -> ServerVectors<'s> {
        self.weight = weight;
        self
    }
}

impl VectorLeg for ServerVectors<'_> {
    fn nearest(&self, question: &str, k: usize) -> Result<Vec<(String, f32)>, QueryError> {
        if question.trim().is_empty() {
            return Ok(Vec::new());
        }
        let q = self.embedder.embed(&[query_text(question)])?;
        let Some(q) = q.first() else {
            return Ok(Vec::new());
        };
        Ok(self
            .store
            .nearest_chunks(q, &self.embedder.model_id(), k)?
            .into_iter()
            .map(|(id, _, score)| (id, score))
            .collect())
    }

    fn describe(&self) -> String {
        format!(
            "{} (Meilisearch, weight {})",
            self.embedder.model_id(),
            self.weight
        )
    }

    fn weight(&self) -> f32 {
        self.weight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_embedder_is_deterministic_and_similar_texts_are_near() {
        let e = FakeEmbedder { dim: 64 };
        let docs = vec![
            (
                "a".to_string(),
                "cancel the order after a timeout".to_string(),
            ),
            ("b".to_string(), "render the invoice as pdf".to_string()),
        ];
        let vi = InMemoryVectors::build(FakeEmbedder { dim: 64 }, &docs).unwrap();
        let top = vi.nearest("order timeout cancel", 2).unwrap();
        assert_eq!(top[0].0, "a");
        assert_eq!(
            e.embed(&["x y".into()]).unwrap(),
            e.embed(&["x y".into()]).unwrap()
        );
    }

    #[test]
    fn dense_vectors_rank_by_cosine_and_match_in_memory_search() {
        let docs = vec![
            (
                "a".to_string(),
                "cancel the order after a timeout".to_string(),
            ),
            ("b".to_string(), "render the invoice as pdf".to_string()),
            ("c".to_string(), "order invoice totals".to_string()),
        ];
        let e = FakeEmbedder { dim: 64 };
        let vecs = e
            .embed(&docs.iter().map(|d| d.1.clone()).collect::<Vec<_>>())
            .unwrap();
        let mut dense = DenseVectors::new(Box::new(FakeEmbedder { dim: 64 }));
        for (d, v) in docs.iter().zip(&vecs) {
            assert!(dense.push(d.0.clone(), v));
        }
        assert!(!dense.push("wrong".into(), &[1.0, 0.0]));
        let mem = InMemoryVectors::build(FakeEmbedder { dim: 64 }, &docs).unwrap();
        for q in ["order timeout cancel", "pdf invoice", "totals"] {
            for k in [1, 2, 5] {
                let a: Vec<String> = dense
                    .nearest(q, k)
                    .unwrap()
                    .into_iter()
                    .map(|x| x.0)
                    .collect();
                let b: Vec<String> = mem
                    .nearest(q, k)
                    .unwrap()
                    .into_iter()
                    .map(|x| x.0)
                    .collect();
                assert_eq!(a, b, "{q} k={k}");
            }
        }
        assert_eq!(dense.nearest("order timeout cancel", 1).unwrap()[0].0, "a");
    }

    #[test]
    fn query_text_spells_out_identifiers() {
        assert_eq!(query_text("how is a file copied"), "how is a file copied");
        assert_eq!(
            query_text("what does FilenameUtils.getBaseName return"),
            "what does FilenameUtils.getBaseName return\nfilename utils get base name"
        );
    }

    #[test]
    fn dot_handles_lengths_not_divisible_by_four() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        assert_eq!(dot(&a, &a), 140.0);
    }
}

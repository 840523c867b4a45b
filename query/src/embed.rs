//! Embeddings for the vector leg: the [`Embedder`] trait, an OpenAI-compatible `/embeddings`
//! client, a deterministic fake for tests, and the [`VectorLeg`] the retriever asks for nearest
//! chunks. Vectors are computed in a separate step; without them the leg is simply absent.

use crate::QueryError;
use crate::llm::{LlmError, http_client, post_json};
use serde::Deserialize;

/// Turns texts into vectors of a fixed dimension.
///
/// Contract: the same text gives the same vector; `embed` returns one vector per input, in order,
/// each of length `dim()`.
pub trait Embedder {
    fn dim(&self) -> usize;
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError>;
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

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
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
            });
        }
        Ok(parsed.data.into_iter().map(|d| d.embedding).collect())
    }

    fn model_id(&self) -> String {
        format!("openai-compatible:{}:{}", self.model, self.dim)
    }
}

/// Deterministic bag-of-words hashing embedder: texts sharing words get close vectors. For tests.
pub struct FakeEmbedder {
    pub dim: usize,
}

impl Embedder for FakeEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
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

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// Nearest chunks to a question, for the retriever.
pub trait VectorLeg {
    /// Chunk ids with similarity, best first, at most `k`.
    fn nearest(&self, question: &str, k: usize) -> Result<Vec<(String, f32)>, QueryError>;
}

/// Vectors held in memory, searched exhaustively (cosine).
pub struct InMemoryVectors<E: Embedder> {
    pub embedder: E,
    pub items: Vec<(String, Vec<f32>)>,
}

impl<E: Embedder> InMemoryVectors<E> {
    /// Embeds `(chunk id, text)` pairs.
    pub fn build(embedder: E, docs: &[(String, String)]) -> Result<Self, LlmError> {
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
            .map_err(QueryError::Llm)?;
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
}

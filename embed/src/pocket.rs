//! The default embedder: `pocket-encoder`, which carries paraphrase-MiniLM-L3-v2 (4-bit, 384
//! dimensions, 128 tokens) inside the crate. No files, no downloads, about 75 chunks/s on a core.

use query::{EmbedError, Embedder};

pub struct PocketEmbedder {
    encoder: pocket_encoder::Encoder,
}

impl PocketEmbedder {
    /// Loads the compiled-in weights (once per process; tens of ms).
    pub fn new() -> Result<PocketEmbedder, EmbedError> {
        let encoder = pocket_encoder::Encoder::new()
            .map_err(|e| EmbedError::Model(format!("pocket-encoder: {e}")))?;
        Ok(PocketEmbedder { encoder })
    }

    /// The model id without loading the weights: whether stored vectors are this model's.
    pub fn model_id_static() -> String {
        let info = pocket_encoder::model_info();
        let rev = info.revision.trim_start_matches("sha256:");
        format!("{}@{}", info.id, &rev[..rev.len().min(16)])
    }
}

impl Embedder for PocketEmbedder {
    fn dim(&self) -> usize {
        pocket_encoder::model_info().dimensions
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // The encoder refuses empty text and more than 4096 texts or 4 MiB per call.
        let safe: Vec<&str> = texts
            .iter()
            .map(|t| if t.trim().is_empty() { "." } else { t.as_str() })
            .collect();
        let mut out = Vec::with_capacity(texts.len());
        for part in safe.chunks(1024) {
            out.extend(
                self.encoder
                    .embed(part)
                    .map_err(|e| EmbedError::Model(format!("pocket-encoder: {e}")))?,
            );
        }
        Ok(out)
    }

    fn model_id(&self) -> String {
        PocketEmbedder::model_id_static()
    }
}

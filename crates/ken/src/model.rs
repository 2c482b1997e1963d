//! `--model` and `--model-dir`, shared by the commands that embed.

use anyhow::Result;
use clap::Args;
use ken_embed::ModelSpec;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Default)]
pub struct ModelArgs {
    /// Embedding model: minilm-int8 (default: all-MiniLM-L6-v2, int8, ONNX
    /// Runtime), minilm (f32, candle), openai:MODEL (an OpenAI-compatible
    /// endpoint at KEN_OPENAI_BASE_URL), or a model directory.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// A HuggingFace-format model directory (tokenizer.json plus model.onnx,
    /// or model.safetensors and config.json).
    #[arg(long, env = "KEN_MODEL_DIR", value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
}

impl ModelArgs {
    /// The model the flags name, if any.
    pub fn explicit(&self) -> Result<Option<(ModelSpec, String)>> {
        if let Some(dir) = &self.model_dir {
            return Ok(Some((ModelSpec::Dir(dir.clone()), dir.display().to_string())));
        }
        match &self.model {
            Some(text) => Ok(Some((ModelSpec::parse(text).map_err(anyhow::Error::msg)?, text.clone()))),
            None => Ok(None),
        }
    }
}

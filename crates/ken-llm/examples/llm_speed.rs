//! Tokens/s and time to first token of the configured model (uncached):
//! `cargo run --release -p ken-llm --example llm_speed [-- PROMPT]`.
use ken_llm::{ChatRequest, LlmConfig, Message};

fn main() {
    let cache = ken_embed::default_cache_dir();
    let mut config = LlmConfig::default();
    config.apply_env(&|key| std::env::var(key).ok());
    let prompt = std::env::args().nth(1).unwrap_or_else(|| "Explain what a hash map is, in three sentences.".into());
    let started = std::time::Instant::now();
    let (llm, source) = config.connect(&cache).expect("model");
    println!("model {} ({source:?}) loaded in {:.2}s", llm.model_id(), started.elapsed().as_secs_f64());
    // A nonce in the system message keeps the disk cache out of the figure.
    let nonce = format!("run {:?}", std::time::SystemTime::now());
    for (label, request) in [
        ("free text", ChatRequest::new(vec![Message::system(nonce.clone()), Message::user(prompt.clone())]).max_tokens(128)),
        (
            "json",
            ChatRequest::new(vec![Message::system(nonce.clone()), Message::user(format!("Give three keywords for: {prompt}"))])
                .max_tokens(96)
                .schema(serde_json::json!({"type": "object", "properties": {"keywords": {"type": "array", "items": {"type": "string"}, "maxItems": 5}}, "required": ["keywords"]})),
        ),
    ] {
        let completion = llm.chat(&request, &mut |_| {}).expect("chat");
        let elapsed = completion.elapsed.unwrap_or_default().as_secs_f64();
        let first = completion.first_token.unwrap_or_default().as_secs_f64();
        let decode = (elapsed - first).max(1e-9);
        println!(
            "{label}: prompt {} tok, output {} tok, first token {:.3}s, total {:.2}s, decode {:.1} tok/s\n  {}",
            completion.prompt_tokens,
            completion.completion_tokens,
            first,
            elapsed,
            completion.completion_tokens.saturating_sub(1) as f64 / decode,
            completion.text.replace('\n', " ")
        );
    }
}

//! Time to first token and decode speed of the configured model, uncached:
//! `cargo run --release -p ken-llm --example llm_speed -- PROMPT_FILE [ROUNDS] [MAX_TOKENS]`.
//! Prints one JSON line per round (`bench/llm.sh` sets it beside llama.cpp).
use ken_llm::{ChatRequest, LlmConfig, Message};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let prompt =
        std::fs::read_to_string(args.get(1).expect("usage: llm_speed PROMPT_FILE [ROUNDS] [MAX_TOKENS]")).expect("the prompt file");
    let rounds: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    let max_tokens: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(128);
    let cache = ken_embed::default_cache_dir();
    let mut config = LlmConfig::default();
    config.apply_env(&|key| std::env::var(key).ok());
    let started = std::time::Instant::now();
    let (llm, _) = config.connect(&cache).expect("model");
    eprintln!("model {} loaded in {:.2}s", llm.model_id(), started.elapsed().as_secs_f64());
    for round in 0..rounds {
        // A nonce keeps the disk cache out of the figure.
        let nonce = format!("Session {round} at {:?}.", std::time::SystemTime::now());
        let request = ChatRequest::new(vec![Message::system(nonce), Message::user(prompt.clone())]).max_tokens(max_tokens);
        let completion = llm.chat(&request, &mut |_| {}).expect("chat");
        let elapsed = completion.elapsed.unwrap_or_default().as_secs_f64();
        let first = completion.first_token.unwrap_or_default().as_secs_f64();
        println!(
            "{}",
            serde_json::json!({
                "prompt_tokens": completion.prompt_tokens,
                "output_tokens": completion.completion_tokens,
                "first_token_s": first,
                "total_s": elapsed,
                "decode_tok_s": completion.completion_tokens.saturating_sub(1) as f64 / (elapsed - first).max(1e-9),
            })
        );
    }
}

//! Embedding throughput on real texts: `throughput MODEL TEXTS.jsonl [LIMIT]`.
//! Each line of TEXTS.jsonl is a JSON string. Prints one JSON line:
//! model id, texts, tokens, seconds, tokens per second.

use ken_embed::{ModelSpec, Resolver};
use std::io::BufRead;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let spec = ModelSpec::parse(args.get(1).map_or(ModelSpec::DEFAULT, String::as_str))?;
    let file = std::fs::File::open(args.get(2).ok_or("usage: throughput MODEL TEXTS.jsonl [LIMIT]")?)?;
    let limit: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(usize::MAX);
    let texts: Vec<String> = std::io::BufReader::new(file)
        .lines()
        .take(limit)
        .map(|l| Ok(serde_json::from_str(&l?)?))
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let embedder = Resolver::default().load(&spec)?;
    // Warm up (session init, allocator), then time one pass over everything.
    embedder.embed_documents(&refs[..refs.len().min(32)])?;
    let start = std::time::Instant::now();
    let vectors = embedder.embed_documents(&refs)?;
    let seconds = start.elapsed().as_secs_f64();
    // Counted after: a static table's word cache would be warm otherwise.
    let tokens = embedder.count_tokens(&refs)?;
    if let Some(out) = args.get(4) {
        std::fs::write(out, serde_json::to_string(&vectors)?)?;
    }
    println!(
        "{}",
        serde_json::json!({"model": embedder.model_id(), "texts": refs.len(), "tokens": tokens,
            "seconds": seconds, "tokens_per_second": tokens as f64 / seconds})
    );
    Ok(())
}

//! Warm query latency in the library: `query_latency INDEX_DIR QUERIES.txt [ROUNDS]`.
//! Opens the index, shard and model once, then times each query three ways:
//! hybrid with a precomputed query vector (no embedding), hybrid end to end
//! (embedding included), and lexical + exact only. Prints one JSON line.

use ken_embed::{ModelSpec, Resolver};
use ken_search::{Mode, SearchOptions, Searcher, VectorShard};
use ken_store::Store;
use std::time::{Duration, Instant};

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).ok_or("usage: query_latency INDEX_DIR QUERIES.txt [ROUNDS]")?);
    let queries: Vec<String> = std::fs::read_to_string(args.get(2).ok_or("missing QUERIES.txt")?)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect();
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let store = Store::open_read_only(&dir)?;
    let (_, spec) = ken_search::indexed_model(&store)?.ok_or("the index has no embeddings; run `ken index` first")?;
    let embedder = Resolver::default().load(&ModelSpec::parse(&spec)?)?;
    // As a server does once: the optimised session answers its queries.
    embedder.ready_for_queries()?;
    let shard = VectorShard::open(&dir, ken_search::SHARD_DIR, ken_search::shard_dim(&store)?, Duration::from_secs(30))?;
    let searcher =
        Searcher { store: &store, shard: Some(&shard), embedder: Some(embedder.as_ref()), dense_off: None, statics: None, intents: None };
    let vectors: Vec<Vec<f32>> = queries.iter().map(|q| embedder.embed_query(q)).collect::<Result<_, _>>()?;
    let (mut cached, mut full, mut lexical) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..=rounds {
        for (q, v) in queries.iter().zip(&vectors) {
            let opts = SearchOptions { query_vector: Some(v.clone()), ..Default::default() };
            let t = Instant::now();
            searcher.search(q, &opts)?;
            let a = t.elapsed().as_secs_f64() * 1000.0;
            let t = Instant::now();
            searcher.search(q, &SearchOptions::default())?;
            let b = t.elapsed().as_secs_f64() * 1000.0;
            let t = Instant::now();
            searcher.search(q, &SearchOptions { mode: Mode::Lexical, ..Default::default() })?;
            let c = t.elapsed().as_secs_f64() * 1000.0;
            if round > 0 {
                cached.push(a);
                full.push(b);
                lexical.push(c);
            }
        }
    }
    let stats = store.stats()?;
    println!(
        "{}",
        serde_json::json!({
            "points": shard.count()?, "chunks": stats.chunks, "symbols": stats.symbols, "queries": queries.len(), "rounds": rounds,
            "hybrid_no_embed_ms": {"p50": percentile(&mut cached, 0.5), "p95": percentile(&mut cached, 0.95)},
            "hybrid_ms": {"p50": percentile(&mut full, 0.5), "p95": percentile(&mut full, 0.95)},
            "lexical_ms": {"p50": percentile(&mut lexical, 0.5), "p95": percentile(&mut lexical, 0.95)},
        })
    );
    Ok(())
}

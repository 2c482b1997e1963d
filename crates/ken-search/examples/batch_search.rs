//! Runs many queries in one process (for evaluations):
//! `batch_search INDEX_DIR QUERIES.jsonl MODE K`. Each input line is a JSON
//! string; each output line is a JSON array of `{path, start_line, end_line,
//! kind, qualified_name}`.

use ken_embed::{ModelSpec, Resolver};
use ken_search::{Mode, SearchOptions, Searcher, VectorShard};
use ken_store::Store;
use std::io::BufRead;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: batch_search INDEX_DIR QUERIES.jsonl MODE K";
    let dir = std::path::PathBuf::from(args.get(1).ok_or(usage)?);
    let queries = std::fs::File::open(args.get(2).ok_or(usage)?)?;
    let mode = Mode::parse(args.get(3).ok_or(usage)?).ok_or("unknown mode")?;
    let k: usize = args.get(4).ok_or(usage)?.parse()?;
    let store = Store::open_read_only(&dir)?;
    let embedder = match ken_search::indexed_model(&store)? {
        Some((_, spec)) if mode.uses_dense() => Some(Resolver::default().load(&ModelSpec::parse(&spec)?)?),
        _ => None,
    };
    let shard = VectorShard::open(&dir, ken_search::shard_dim(&store)?, Duration::from_secs(30))?;
    let searcher = Searcher { store: &store, shard: Some(&shard), embedder: embedder.as_deref() };
    for line in std::io::BufReader::new(queries).lines() {
        let query: String = serde_json::from_str(&line?)?;
        let hits = match searcher.search(&query, &SearchOptions { k, mode, ..Default::default() }) {
            Ok(r) => r.hits,
            Err(e) => {
                eprintln!("{query}: {e}");
                Vec::new()
            }
        };
        let rows: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| serde_json::json!({"path": h.path, "start_line": h.start_line, "end_line": h.end_line,
                "kind": h.kind, "qualified_name": h.qualified_name}))
            .collect();
        println!("{}", serde_json::Value::Array(rows));
    }
    Ok(())
}

//! Graph query latency from a warm process, for `bench/graph.sh`.
//!
//! Usage: graph_query_latency INDEX_DIR [N]
//! Opens the index once, warms it with one pass, then times `callers` at
//! depth 3 for the N most important functions and methods and `subclasses`
//! for the N most important classes, and prints percentiles in milliseconds.

use ken_graph::{Graph, SymbolRef};
use ken_store::Store;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: graph_query_latency INDEX_DIR [N]");
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(200);
    let store = Store::open_read_only(std::path::Path::new(&dir)).expect("open index");
    let graph = Graph::new(&store);
    let ranked = graph.ranked(usize::MAX, |_, _| true).expect("ranked symbols");
    let callables: Vec<String> =
        ranked.iter().filter(|(s, _)| s.kind.is_callable()).take(n).map(|(s, _)| format!("{}:{}", s.path, s.start_line)).collect();
    let classes: Vec<String> = ranked
        .iter()
        .filter(|(s, _)| s.kind == ken_core::SymbolKind::Class)
        .take(n)
        .map(|(s, _)| format!("{}:{}", s.path, s.start_line))
        .collect();
    for pass in 0..2 {
        let mut callers_ms = Vec::new();
        let mut subclasses_ms = Vec::new();
        let mut hits = 0usize;
        for at in &callables {
            let started = Instant::now();
            let root = graph.resolve(&SymbolRef::parse(at)).expect("symbol");
            hits += graph.callers(root, 3).expect("callers").hits.len();
            callers_ms.push(started.elapsed().as_secs_f64() * 1e3);
        }
        for at in &classes {
            let started = Instant::now();
            let root = graph.resolve(&SymbolRef::parse(at)).expect("symbol");
            hits += graph.subclasses(root).expect("subclasses").hits.len();
            subclasses_ms.push(started.elapsed().as_secs_f64() * 1e3);
        }
        if pass == 1 {
            report("callers --depth 3", &mut callers_ms);
            report("subclasses", &mut subclasses_ms);
            println!("  ({hits} results in total)");
        }
    }
}

fn report(what: &str, ms: &mut [f64]) {
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms.get(((ms.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(0.0);
    println!("  {what:<18} n={:<4} p50 {:.2} ms  p95 {:.2} ms  max {:.2} ms", ms.len(), pct(0.5), pct(0.95), pct(1.0));
}

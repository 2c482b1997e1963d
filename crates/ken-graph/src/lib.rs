//! The dependency graph: CodePlan's relations resolved from mined
//! references, kept fresh incrementally, with symbol analytics and queries.
//!
//! [`link`] runs after mining. It resolves the references of every file
//! marked unlinked (new, changed, or depending on a file that changed: see
//! `file_deps` in the store) and rewrites their edges, then recomputes the
//! whole-graph analytics. [`Graph`] answers queries over the stored edges.
//!
//! Resolution itself (`program`, `resolve`) is pure: it reads a snapshot of
//! the symbol table and produces edges; only `link` touches the store.

mod analytics;
mod go_interfaces;
mod program;
mod query;
mod resolve;
mod tests;

pub use analytics::{USE_RELATIONS, personalized_pagerank};
pub use query::{Direction, ExportFormat, Graph, GraphError, Hit, MAX_DEPTH, Site, SymbolRef, Traversal, accessor_line};

use ken_core::RefKind;
use ken_store::{Store, StoreError};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// What a link run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkSummary {
    /// Files whose references were resolved in this run.
    pub files_linked: u64,
    /// Edges in the graph, and how many have a target.
    pub edges: u64,
    pub resolved: u64,
    /// Edges per resolution kind (exact, type_inferred, unique_name, unresolved).
    pub by_resolution: BTreeMap<String, u64>,
    /// Whether the analytics were recomputed.
    pub analytics: bool,
    /// Files whose resolution hit a bug in ken: left unlinked (so the next
    /// run tries again), with the panic's message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<LinkFailure>,
    pub seconds: f64,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LinkFailure {
    pub path: String,
    pub detail: String,
}

const LINK_BATCH: usize = 256;
/// Bump when resolution changes, so indexes an older ken linked link again
/// (once, in the transaction that records the new version).
const RESOLVER_VERSION: &str = "4";

/// Resolves every unlinked file and, if anything changed, recomputes the
/// analytics. Safe to kill at any point: a file is marked linked in the same
/// transaction that writes its edges, so the next run picks up the rest.
pub fn link(store: &mut Store) -> Result<LinkSummary, StoreError> {
    let started = Instant::now();
    if store.meta("resolver")?.as_deref() != Some(RESOLVER_VERSION) {
        let writer = store.writer()?;
        writer.unlink_all()?;
        writer.set_meta("resolver", RESOLVER_VERSION)?;
        writer.commit()?;
    }
    let unlinked = store.unlinked_files()?;
    let stale_metrics = store.meta("metrics_fresh")?.as_deref() != Some("1");
    let mut summary = LinkSummary::default();
    // The symbol table resolution loaded, reused by the analytics.
    let mut loaded: Option<program::Program> = None;
    if !unlinked.is_empty() {
        let files = store.graph_files()?;
        let syms = store.graph_symbols()?;
        let imports = store.graph_refs(&[RefKind::Import], None)?;
        let inherits = store.graph_refs(&[RefKind::Inherit], None)?;
        let bindings = store.graph_bindings()?;
        let everything = unlinked.len() == files.len();
        let ref_kinds = [RefKind::Call, RefKind::Instantiate, RefKind::FieldUse];
        let refs = store.graph_refs(&ref_kinds, if everything { None } else { Some(&unlinked) })?;
        tracing::debug!(elapsed = ?started.elapsed(), "graph: loaded");
        let mut program = program::Program::build(files, syms, imports, inherits, bindings);
        resolve::resolve_bases(&mut program);
        tracing::debug!(elapsed = ?started.elapsed(), "graph: program built");

        let mut refs_by_file: rustc_hash::FxHashMap<i64, Vec<ken_store::RefRow>> = rustc_hash::FxHashMap::default();
        for r in refs {
            refs_by_file.entry(r.file_id).or_default().push(r);
        }
        // Files resolve on every core while one thread writes what is done,
        // a transaction per batch.
        let (tx, rx) = crossbeam_channel::bounded::<(i64, Vec<ken_store::NewEdge>, Vec<i64>)>(1024);
        let program_ref = &program;
        let refs_by_file = &refs_by_file;
        let store_for_writer = &mut *store;
        let written: Result<u64, StoreError> = std::thread::scope(|scope| {
            let writer = scope.spawn(move || -> Result<u64, StoreError> {
                let mut count = 0u64;
                let store = store_for_writer;
                let mut batch = store.writer()?;
                batch.set_meta("metrics_fresh", "0")?;
                for (file_id, edges, deps) in rx {
                    batch.put_links(file_id, &edges, &deps)?;
                    count += 1;
                    if count.is_multiple_of(LINK_BATCH as u64) {
                        batch.commit()?;
                        ken_core::failpoint("index.link_batch");
                        batch = store.writer()?;
                    }
                }
                batch.commit()?;
                Ok(count)
            });
            let empty = Vec::new();
            let failures = std::sync::Mutex::new(Vec::new());
            unlinked.par_iter().for_each_with(tx, |tx, file_id| {
                let Some(&fi) = program_ref.file_of_id.get(file_id) else { return };
                // A bug one file's references trigger costs that file's edges only.
                let linked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let mut ctx = resolve::Ctx::new(program_ref, fi);
                    let edges = resolve::link_file(&mut ctx, refs_by_file.get(file_id).unwrap_or(&empty));
                    let mut deps: Vec<i64> = ctx.deps.into_iter().collect();
                    deps.sort_unstable();
                    (edges, deps)
                }));
                match linked {
                    // The writer only hangs up on an error, which it reports.
                    Ok((edges, deps)) => drop(tx.send((*file_id, edges, deps))),
                    Err(panic) => failures
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(LinkFailure { path: program_ref.files[fi].row.path.clone(), detail: ken_core::panic_message(&*panic) }),
                }
            });
            summary.failed = failures.into_inner().unwrap_or_else(|e| e.into_inner());
            summary.failed.sort_by(|a, b| a.path.cmp(&b.path));
            writer.join().unwrap_or(Ok(0))
        });
        summary.files_linked = written?;
        loaded = Some(program);
    }
    tracing::debug!(elapsed = ?started.elapsed(), "graph: linked");
    if !unlinked.is_empty() || stale_metrics {
        let (files, syms) = match loaded {
            Some(program) => (program.files.into_iter().map(|f| f.row).collect(), program.syms),
            None => (store.graph_files()?, store.graph_symbols()?),
        };
        let edges = store.resolved_edges()?;
        tracing::debug!(elapsed = ?started.elapsed(), "graph: analytics loaded");
        let rows = analytics::compute(&files, &syms, &edges);
        tracing::debug!(elapsed = ?started.elapsed(), "graph: analytics computed");
        let writer = store.writer()?;
        writer.put_metrics(&rows)?;
        writer.set_meta("metrics_fresh", "1")?;
        writer.commit()?;
        summary.analytics = true;
    }
    tracing::debug!(elapsed = ?started.elapsed(), "graph: analytics written");
    for (resolution, count, with_target) in store.edge_totals()? {
        summary.edges += count;
        summary.resolved += with_target;
        *summary.by_resolution.entry(resolution.as_str().to_string()).or_default() += count;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

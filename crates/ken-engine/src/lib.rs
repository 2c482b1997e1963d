//! One Kenning index, owned end to end by one [`Engine`]: indexing in every
//! phase, hybrid search, the pipeline, symbols, the graph, status, and
//! answers from a language model. Its
//! API is plain data (`api.rs`, with JSON schemas); the surfaces (the CLI,
//! ken-server's HTTP and MCP) are thin adapters that know their wire.
//!
//! - `engine.rs`: the engine and its queries.
//! - `ask.rs`: `Engine::ask`, answers with cited code from the language model.
//! - `expand.rs`: the query DSL (`query_expansion = "dsl"`): searches the
//!   model's rewrites and fuses them.
//! - `context.rs`: context packs, the code a task needs within a token budget.
//! - `map.rs`: the repository map, signatures ranked by (personalised) PageRank within a token budget.
//! - `impact.rs`: CodePlan's may-impact analysis and plan graph.
//! - `execute.rs`: CodePlan's adaptive plan-and-execute loop, its editors and oracles.
//! - `files.rs`: the indexed files themselves: outlines, grep over the indexed text.
//! - `index.rs`: `Engine::index`, every phase in process.
//! - `watch.rs`: `Engine::watch`, file events trigger incremental passes: searchable first, embedded after.
//! - `intents.rs`: MutaGReP's intents (`--intents`), written, cached and embedded.
//! - `plan_search.rs`: MutaGReP's plan search: plans proposed by the model, grounded by retrieval.
//! - `eval.rs`: `Engine::eval`, retrieval quality on the repository's own query sets.
//! - `api.rs`: request and response shapes, validated, naming bad fields.
//! - `error.rs`: one error type, by cause.

pub mod api;
mod ask;
mod context;
mod engine;
mod error;
mod eval;
mod execute;
mod expand;
mod files;
pub mod hub;
mod impact;
mod index;
mod intents;
mod map;
mod plan_search;
mod watch;

pub use engine::{Engine, EngineOptions};
pub use error::{Error, ErrorKind};
pub use index::{IndexProgress, IndexReport, IndexRequest, VectorReport};
pub use intents::{IntentProgress, IntentReport};
pub use watch::{WatchEvent, WatchOptions};

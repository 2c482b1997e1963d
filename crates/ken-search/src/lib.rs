//! Retrieval: the Qdrant Edge shard of dense and BM25 vectors, kept in step
//! with the SQLite index, and hybrid search over it.
//!
//! - `shard.rs`: the embedded shard (one process at a time, by lock file).
//! - `lexical.rs`: code-aware tokenizer and BM25 sparse vectors. Pure.
//! - `sync.rs`: SQLite → shard (points, then embeddings; resumable).
//! - `hybrid.rs`: dense + BM25 + exact-identifier lanes, RRF, de-duplication.

mod hybrid;
pub mod lexical;
mod shard;
mod sync;

pub use hybrid::{Hit, LaneRanks, LaneScores, MAX_QUERY_CHARS, Mode, QueryPlan, SearchError, SearchOptions, SearchResponse, Searcher, Snippet, Timings, plan_query};
pub use shard::{PointFilter, ShardError, VectorShard, SHARD_DIR};
pub use sync::{
    DEFAULT_DIM, EmbedSummary, SyncError, SyncSummary, embed_pending, embed_text, index_model_spec, indexed_model, reset, shard_dim, sync_points,
    text_hash,
};

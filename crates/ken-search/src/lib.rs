//! Retrieval: the BM25 documents (SQLite FTS5) and the vector stores (Qdrant
//! Edge shards, or a Qdrant server), kept in step with the SQLite index, and hybrid search.
//!
//! - `shard.rs`: a store of one role, Edge shard (one process at a time, by
//!   lock file) or server collection, and `SharedShard`, the one handle a process shares between its
//!   searches and its writer.
//! - `points.rs`: what every vector store holds and says (payload, filter, errors).
//! - `remote.rs`: a Qdrant server or cluster in place of the Edge shards,
//!   one collection per role shared by repositories (`[vectors] url`).
//! - `lexical.rs`: code-aware tokenizer into hashed FTS5 tokens. Pure.
//! - `sync.rs`: SQLite → points and BM25 rows, then embeddings (resumable).
//! - `hybrid.rs`: dense + BM25 + exact-identifier lanes, RRF, de-duplication.
//! - `intents.rs`: the intent lane (MutaGReP): intents' vectors in their own shard, searched by symbol.
//! - `report.rs`: a bug report read as evidence (frames, paths, names, phrases). Pure.
//! - `locate.rs`: bug localization: the report's evidence, lane by lane, ranks files and their symbols.

mod hybrid;
mod intents;
pub mod lexical;
mod locate;
mod points;
mod remote;
pub mod report;
mod shard;
mod sync;

pub use hybrid::{
    DenseView, FusionMethod, Hit, LaneRanks, LaneScores, MAX_QUERY_CHARS, Mode, QueryPlan, Ranking, RankingOverrides, SearchError,
    SearchOptions, SearchResponse, Searcher, Snippet, Timings, is_test_path, plan_query,
};
pub use intents::{INTENT_SHARD_DIR, IntentMatch, IntentVectorSummary, intent_vectors_model, search_intents, sync_intent_vectors};
pub use locate::{
    Evidence, EvidenceKind, EvidenceSummary, FileHit, FilePrior, FunctionHit, LaneRanking, LocateExplain, LocateOptions, LocateResponse,
    LocateTimings, LocateWeights, MAX_REPORT_CHARS, SymbolHit, functions_across,
};
pub use remote::{QdrantServer, VectorsConfig};
pub use shard::{PointFilter, SHARD_DIR, STATIC_SHARD_DIR, ShardError, SharedShard, VectorLocation, VectorShard};
pub use sync::{
    DEFAULT_DIM, EmbedSummary, StaticVectors, SyncError, SyncSummary, WRITER_WAIT, drop_static, embed_pending, embed_text,
    index_model_spec, indexed_model, reset, shard_dim, static_model, sync_points, text_hash,
};

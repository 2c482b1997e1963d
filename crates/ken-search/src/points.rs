//! What every vector store holds and says, Edge shard or Qdrant server
//! alike: the point payload, the filter, the dense vector's name, and the
//! errors.

pub use ken_store::UnitFilter as PointFilter;
use std::path::PathBuf;

/// The name of the dense vector in every store.
pub const DENSE: &str = "dense";

#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error(
        "the vector index in {0} is in use by another ken process (an index or embedding run, or a `ken serve` or `ken mcp` that holds it); retry when it is done, or ask the server"
    )]
    Busy(PathBuf),
    #[error("the vector index in {path} is damaged ({detail}); run `ken index --rebuild` to rebuild it from the index")]
    Corrupt { path: PathBuf, detail: String },
    #[error(
        "the disk holding the vector index {path} is full ({available_kib} KiB free, about {needed_kib} KiB needed); free some space or pass --index-dir on another disk, then run `ken index` again: it resumes from its last commit"
    )]
    DiskFull { path: PathBuf, available_kib: u64, needed_kib: u64 },
    #[error("vector index error: {0}")]
    Qdrant(String),
    #[error(
        "cannot reach the Qdrant server at {urls} ({detail}); start it or check --qdrant-url, KEN_QDRANT_URL or `[vectors] url` in ken.toml. What was indexed is kept: `ken index` resumes once the server answers"
    )]
    Unreachable { urls: String, detail: String },
    #[error("bad vector store settings: {0}")]
    Config(String),
}

pub type Result<T, E = ShardError> = std::result::Result<T, E>;

/// What a point is, for filtering.
#[derive(Clone, Debug)]
pub struct PointPayload<'a> {
    pub file_id: i64,
    pub path: &'a str,
    pub language: &'a str,
    pub kind: &'a str,
    pub is_chunk: bool,
    pub name: &'a str,
    pub qualified_name: &'a str,
    /// The text a server's BM25 vector is made of, beside the names (a
    /// symbol's code, a chunk's text). The Edge shard keeps no text: its
    /// BM25 lane is SQLite's.
    pub text: &'a str,
}

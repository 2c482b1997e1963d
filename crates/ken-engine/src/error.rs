//! One error type for everything the engine answers, by cause. The surfaces
//! map it in one place each: HTTP to a status (ken-server's `ApiError`),
//! MCP to `invalid_params` or a tool error, the CLI to a message.

use ken_graph::GraphError;
use ken_pipeline::{ConfigError, PipelineError};
use ken_search::{SearchError, ShardError, SyncError};
use ken_store::StoreError;

/// Why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A request field has a bad value (the error names it).
    InvalidField,
    /// No symbol (or file) matches.
    NotFound,
    /// A name matches several symbols.
    Ambiguous,
    /// The request contradicts the index (another model, a reindex running).
    Conflict,
    /// Another process holds the index; the message says which and what to wait for.
    Busy,
    /// No index yet, or one this version cannot read.
    NoIndex,
    /// The embedding model cannot be loaded.
    ModelUnavailable,
    /// A service the index depends on (a Qdrant server) does not answer.
    Unavailable,
    /// The caller cancelled the run; what it committed stays.
    Cancelled,
    /// A bug or an IO failure.
    Internal,
}

impl ErrorKind {
    /// A stable name for programs (`invalid_field`, `not_found`, …).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidField => "invalid_field",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Busy => "busy",
            ErrorKind::NoIndex => "no_index",
            ErrorKind::ModelUnavailable => "model_unavailable",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Internal => "internal",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// What went wrong and what to do next.
    pub message: String,
    /// The request field at fault (`top_k`, `config_overrides.ranking_weights.w1`).
    pub field: Option<String>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) if !self.message.contains(field.as_str()) => write!(f, "`{field}` {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), field: None }
    }

    /// A field with a bad value.
    pub fn invalid(field: &str, problem: impl Into<String>) -> Error {
        let problem = problem.into();
        Error { kind: ErrorKind::InvalidField, message: format!("`{field}` {problem}"), field: Some(field.to_string()) }
    }

    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    pub fn conflict(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Conflict, message)
    }

    fn with_field(mut self, field: &str) -> Error {
        self.field = Some(field.to_string());
        self
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        let kind = match e {
            StoreError::Missing(_)
            | StoreError::TooNew { .. }
            | StoreError::Outdated { .. }
            | StoreError::Corrupt { .. }
            | StoreError::UnknownValue { .. } => ErrorKind::NoIndex,
            StoreError::Locked(_) => ErrorKind::Busy,
            _ => ErrorKind::Internal,
        };
        Error::new(kind, e.to_string())
    }
}

impl From<ShardError> for Error {
    fn from(e: ShardError) -> Error {
        let kind = match e {
            ShardError::Busy(_) => ErrorKind::Busy,
            ShardError::Unreachable { .. } => ErrorKind::Unavailable,
            ShardError::Config(_) => ErrorKind::InvalidField,
            _ => ErrorKind::Internal,
        };
        Error::new(kind, e.to_string())
    }
}

impl From<SearchError> for Error {
    fn from(e: SearchError) -> Error {
        match e {
            SearchError::EmptyQuery | SearchError::OnlyStopwords(_) => {
                Error::new(ErrorKind::InvalidField, e.to_string()).with_field("query")
            }
            SearchError::BadGlob { .. } => Error::new(ErrorKind::InvalidField, e.to_string()).with_field("path"),
            SearchError::Store(e) => e.into(),
            SearchError::Shard(e) => e.into(),
            SearchError::Embed(e) => Error::new(ErrorKind::ModelUnavailable, e.to_string()),
        }
    }
}

impl From<SyncError> for Error {
    fn from(e: SyncError) -> Error {
        match e {
            SyncError::Store(e) => e.into(),
            SyncError::Shard(e) => e.into(),
            SyncError::Embed(e) => Error::new(ErrorKind::ModelUnavailable, e.to_string()),
            SyncError::ModelMismatch { .. } => Error::conflict(e.to_string()),
        }
    }
}

impl From<PipelineError> for Error {
    fn from(e: PipelineError) -> Error {
        match e {
            PipelineError::Search(e) => e.into(),
            PipelineError::Store(e) => e.into(),
        }
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Error {
        let field = e.field().map(str::to_string);
        let message = match &e {
            ConfigError::Invalid { field, problem, .. } => format!("`{field}` {problem}"),
            _ => e.to_string(),
        };
        Error { kind: ErrorKind::InvalidField, message, field }
    }
}

impl From<GraphError> for Error {
    fn from(e: GraphError) -> Error {
        let kind = match e {
            GraphError::NotFound { .. } | GraphError::NoFile(_) => ErrorKind::NotFound,
            GraphError::Ambiguous { .. } => ErrorKind::Ambiguous,
            GraphError::Store(e) => return e.into(),
        };
        Error::new(kind, e.to_string()).with_field("symbol")
    }
}

impl From<ken_index::IndexError> for Error {
    fn from(e: ken_index::IndexError) -> Error {
        match e {
            ken_index::IndexError::Store(e) => e.into(),
            ken_index::IndexError::Cancelled => Error::new(ErrorKind::Cancelled, e.to_string()),
            other => Error::invalid("root", other.to_string()),
        }
    }
}

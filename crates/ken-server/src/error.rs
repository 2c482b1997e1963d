//! One error type for the HTTP API and the MCP tools: a status, a stable
//! code, the field at fault when there is one, and a message that says what
//! to do next. Rendered as `{"error": {"code", "message", "field"}}`.

use ken_graph::GraphError;
use ken_pipeline::{ConfigError, PipelineError};
use ken_search::{SearchError, ShardError};
use ken_store::StoreError;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ApiError {
    #[serde(skip)]
    pub status: u16,
    /// Stable, for programs: invalid_request, invalid_field, not_found,
    /// ambiguous, conflict, unavailable, timeout, too_large, internal…
    pub code: &'static str,
    pub message: String,
    /// The request field at fault (`top_k`, `config_overrides.ranking_weights.w1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ErrorBody {
    pub error: ApiError,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) if !self.message.contains(field.as_str()) => write!(f, "`{field}` {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ApiError {}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), field: None }
    }

    /// A field with a bad value (400).
    pub fn invalid(field: &str, problem: impl Into<String>) -> ApiError {
        let problem = problem.into();
        ApiError { status: 400, code: "invalid_field", message: format!("`{field}` {problem}"), field: Some(field.to_string()) }
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, "internal", message)
    }

    pub fn conflict(message: String) -> ApiError {
        ApiError::new(409, "conflict", message)
    }

    pub fn from_store(e: StoreError) -> ApiError {
        match e {
            StoreError::Missing(_) => ApiError::new(503, "no_index", e.to_string()),
            StoreError::Locked(_) => ApiError::new(503, "busy", e.to_string()),
            _ => ApiError::internal(e.to_string()),
        }
    }

    pub fn from_shard(e: ShardError) -> ApiError {
        match e {
            ShardError::Busy(_) => ApiError::new(503, "busy", e.to_string()),
            _ => ApiError::internal(e.to_string()),
        }
    }

    pub fn from_search(e: SearchError) -> ApiError {
        match e {
            SearchError::EmptyQuery | SearchError::OnlyStopwords(_) => {
                ApiError { field: Some("query".into()), ..ApiError::new(400, "invalid_field", e.to_string()) }
            }
            SearchError::BadGlob { .. } => ApiError { field: Some("path".into()), ..ApiError::new(400, "invalid_field", e.to_string()) },
            SearchError::Store(e) => ApiError::from_store(e),
            SearchError::Shard(e) => ApiError::from_shard(e),
            SearchError::Embed(e) => ApiError::new(503, "model_unavailable", e.to_string()),
        }
    }

    pub fn from_pipeline(e: PipelineError) -> ApiError {
        match e {
            PipelineError::Search(e) => ApiError::from_search(e),
            PipelineError::Store(e) => ApiError::from_store(e),
        }
    }

    pub fn from_config(e: ConfigError) -> ApiError {
        let field = e.field().map(str::to_string);
        let message = match &e {
            ConfigError::Invalid { field, problem, .. } => format!("`{field}` {problem}"),
            _ => e.to_string(),
        };
        ApiError { status: 400, code: "invalid_field", message, field }
    }

    pub fn from_graph(e: GraphError) -> ApiError {
        let field = Some("symbol".to_string());
        match e {
            GraphError::NotFound { .. } | GraphError::NoFile(_) => ApiError { field, ..ApiError::new(404, "not_found", e.to_string()) },
            GraphError::Ambiguous { .. } => ApiError { field, ..ApiError::new(409, "ambiguous", e.to_string()) },
            GraphError::Store(e) => ApiError::from_store(e),
        }
    }
}

//! The HTTP API's error: a status, a stable code, the field at fault when
//! there is one, and a message that says what to do next. Rendered as
//! `{"error": {"code", "message", "field"}}`. Engine errors map to it in one
//! place (`From<ken_engine::Error>`); the rest are the wire's own (bad JSON,
//! too large, overloaded).
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
}

/// The engine's errors, by cause, as HTTP statuses.
impl From<ken_engine::Error> for ApiError {
    fn from(e: ken_engine::Error) -> ApiError {
        use ken_engine::ErrorKind::*;
        let status = match e.kind {
            InvalidField => 400,
            NotFound => 404,
            Ambiguous | Conflict | Cancelled => 409,
            Busy | NoIndex | ModelUnavailable | Unavailable => 503,
            Internal => 500,
        };
        ApiError { status, code: e.kind.code(), message: e.message, field: e.field }
    }
}

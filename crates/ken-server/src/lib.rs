//! The service layer of `ken serve` (HTTP, axum) and `ken mcp` (MCP over
//! stdio, rmcp): one [`Engine`] per index, shared by every request.
//!
//! - `api.rs`: request and response shapes, validated, with JSON schemas.
//! - `engine.rs`: the blocking work (search, pipeline, symbols, graph, status, reindex).
//! - `error.rs`: one error type, rendered as `{"error": {code, message, field}}`.
//! - `http.rs`: routes, extractors that name bad fields, limits and deadlines.
//! - `mcp.rs`: the MCP tools.
//! - `openapi.rs`: the OpenAPI 3.1 document, from the same types.

pub mod api;
mod engine;
mod error;
pub mod http;
pub mod mcp;
pub mod openapi;

pub use engine::{Engine, EngineOptions};
pub use error::ApiError;

//! The wire of `ken serve` (HTTP, axum) and `ken mcp` (MCP over stdio,
//! rmcp) over one [`ken_engine::Engine`], shared by every request. The
//! engine does the work; this crate only knows HTTP, MCP and JSON errors.
//!
//! - `error.rs`: the engine's errors as HTTP statuses, rendered as
//!   `{"error": {code, message, field}}`.
//! - `http.rs`: routes, extractors that name bad fields, limits and deadlines.
//! - `hub.rs`: the team hub's routes (`ken serve --hub`): tokens, pushes,
//!   search over many repositories, each repository's own read routes.
//! - `mcp.rs`: the MCP tools, over stdio (`ken mcp`) or at `/mcp`.
//! - `mcp_hub.rs`: the hub's MCP tools: search over many repositories, and
//!   one repository's read tools.
//! - `openapi.rs`: the OpenAPI 3.1 document, from the engine's request types.

// The OpenAPI document is one `json!` literal, deeper than the default allows.
#![recursion_limit = "256"]

mod error;
pub mod http;
pub mod hub;
pub mod mcp;
pub mod mcp_hub;
pub mod openapi;

pub use error::ApiError;
pub use ken_engine::{Engine, EngineOptions, api};

//! `ken serve --hub`: the team hub's HTTP API over [`ken_engine::hub::Hub`].
//!
//! Every route but `/health` wants `Authorization: Bearer <token>`: a
//! missing or unknown token is a 401, a read token on a push a 403. A push
//! body may be zstd-compressed (`Content-Encoding: zstd`); it is limited
//! in size both as sent and once decompressed. A repository's own API (the
//! single-index server's read routes) answers under
//! `/api/v1/repos/{repo}/…`, on its live version; the MCP tools over
//! streamable HTTP at `/mcp` (a read token).

use crate::error::ApiError;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use ken_engine::hub::{Access, Hub, HubSearchRequest, PushRequest};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

#[derive(Clone)]
struct HubState {
    hub: Arc<Hub>,
    max_push_bytes: usize,
    timeout: Duration,
}

/// Routes a repository's API answers through the hub: reads only (a hub's
/// repositories change by pushes, not by requests).
const REPO_ROUTES: [&str; 13] =
    ["search", "hybrid-search", "locate", "context", "map", "symbols", "symbol", "graph", "path", "untested", "status", "impact", "plan"];

/// `max_push_bytes`: the largest push, decompressed.
/// `stop` ends the MCP sessions (at shutdown).
pub fn router(hub: Arc<Hub>, max_push_bytes: usize, timeout: Duration, stop: CancellationToken) -> Router {
    let state = HubState { hub: hub.clone(), max_push_bytes, timeout };
    let mcp = Router::new()
        .nest_service("/mcp", crate::mcp::http_service(crate::mcp_hub::HubMcp::new(hub), stop, true))
        .layer(axum::middleware::from_fn_with_state(state.clone(), require_read));
    Router::new()
        .merge(mcp)
        .route("/health", get(|| async { Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "hub": true})) }))
        .route("/openapi.json", get(|| async { Json(crate::openapi::hub_document()) }))
        .route("/api/v1/repos", get(repos))
        .route("/api/v1/repos/{repo}/manifest", get(manifest))
        .route("/api/v1/repos/{repo}/push", post(push))
        .route("/api/v1/search", post(search))
        .route("/api/v1/repos/{repo}/{*rest}", any(repo_api))
        .fallback(|| async { ApiError::new(404, "not_found", "no such hub route; see the README's team setup").into_response() })
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(|_| {
            ApiError::internal("the hub hit a bug answering this request; it was logged, please report it").into_response()
        }))
        .with_state(state)
}

/// The access the request's bearer token grants, or the 401/403 to answer.
fn authorize(state: &HubState, headers: &HeaderMap, need: Access) -> Result<(), ApiError> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        return Err(ApiError::new(
            401,
            "unauthorized",
            "send a hub token as `Authorization: Bearer <token>` (make one with `ken hub token`)",
        ));
    };
    match state.hub.access(token)? {
        None => Err(ApiError::new(401, "unauthorized", "this token is not known to the hub (revoked, or from another hub)")),
        Some(Access::Read) if need == Access::Push => {
            Err(ApiError::new(403, "forbidden", "this token may read, not push; push with a push token"))
        }
        Some(_) => Ok(()),
    }
}

/// Runs blocking hub work off the async threads, within the deadline.
async fn blocking<T: Send + 'static>(
    state: &HubState,
    work: impl FnOnce(&Hub) -> Result<T, ken_engine::Error> + Send + 'static,
) -> Result<T, ApiError> {
    let hub = state.hub.clone();
    let task = tokio::task::spawn_blocking(move || work(&hub));
    match tokio::time::timeout(state.timeout, task).await {
        Err(_) => Err(ApiError::new(504, "timeout", format!("the request took longer than {} s", state.timeout.as_secs()))),
        Ok(Err(join)) => {
            tracing::error!("hub request failed: {join}");
            Err(ApiError::internal("the hub hit a bug answering this request; it was logged, please report it"))
        }
        Ok(Ok(result)) => result.map_err(ApiError::from),
    }
}

fn json<T: serde::Serialize>(result: Result<T, ApiError>) -> Response {
    match result {
        Ok(value) => Json(value).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn repos(State(state): State<HubState>, headers: HeaderMap) -> Response {
    if let Err(e) = authorize(&state, &headers, Access::Read) {
        return e.into_response();
    }
    json(blocking(&state, |hub| hub.repos()).await)
}

async fn manifest(State(state): State<HubState>, headers: HeaderMap, Path(repo): Path<String>) -> Response {
    if let Err(e) = authorize(&state, &headers, Access::Read) {
        return e.into_response();
    }
    json(blocking(&state, move |hub| hub.manifest(&repo)).await)
}

/// The body as JSON: decompressed when zstd, never beyond `max_push_bytes`.
fn read_push(bytes: &[u8], headers: &HeaderMap, max: usize) -> Result<PushRequest, ApiError> {
    let encoding = headers.get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("identity");
    let decoded;
    let json = match encoding {
        "identity" => bytes,
        "zstd" => {
            use std::io::Read;
            let decoder = zstd::stream::read::Decoder::new(bytes)
                .map_err(|e| ApiError::new(400, "invalid_request", format!("bad zstd body: {e}")))?;
            let mut out = Vec::new();
            // One byte past the limit tells a body that is too large.
            decoder
                .take(max as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| ApiError::new(400, "invalid_request", format!("bad zstd body: {e}")))?;
            if out.len() > max {
                return Err(ApiError::new(
                    413,
                    "too_large",
                    format!("the push is larger than {max} bytes decompressed; see --max-push-bytes"),
                ));
            }
            decoded = out;
            &decoded[..]
        }
        other => return Err(ApiError::new(415, "unsupported_media_type", format!("Content-Encoding `{other}`: send identity or zstd"))),
    };
    crate::http::parse_json(json)
}

/// The body, or a JSON 413 past `limit` bytes.
async fn body_bytes(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let too_large =
            std::error::Error::source(&e).is_some_and(|s| s.to_string().contains("length limit")) || e.to_string().contains("length limit");
        if too_large {
            ApiError::new(413, "too_large", format!("the request body is larger than {limit} bytes; see --max-push-bytes"))
        } else {
            ApiError::new(400, "invalid_request", format!("cannot read the request body: {e}"))
        }
    })
}

async fn push(State(state): State<HubState>, Path(repo): Path<String>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    if let Err(e) = authorize(&state, &headers, Access::Push) {
        return e.into_response();
    }
    let body = match body_bytes(body, state.max_push_bytes).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    let request = match read_push(&body, &headers, state.max_push_bytes) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    json(blocking(&state, move |hub| hub.push(&repo, &request)).await)
}

async fn search(State(state): State<HubState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(e) = authorize(&state, &parts.headers, Access::Read) {
        return e.into_response();
    }
    let body = match body_bytes(body, 1 << 20).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    let request: HubSearchRequest = match crate::http::parse_json(&body) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    json(blocking(&state, move |hub| hub.search(&request)).await)
}

/// `/api/v1/repos/{repo}/{route}` answered by that repository's own API.
async fn repo_api(State(state): State<HubState>, Path((repo, rest)): Path<(String, String)>, request: Request) -> Response {
    if let Err(e) = authorize(&state, request.headers(), Access::Read) {
        return e.into_response();
    }
    let route = rest.split('/').next().unwrap_or_default();
    if !REPO_ROUTES.contains(&route) {
        return ApiError::new(404, "not_found", format!("a repository on the hub answers {}", REPO_ROUTES.join(", "))).into_response();
    }
    let engine = match blocking(&state, move |hub| hub.engine(&repo)).await {
        Ok(engine) => engine,
        Err(e) => return e.into_response(),
    };
    let (mut parts, body) = request.into_parts();
    let query = parts.uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    parts.uri = match format!("/api/v1/{rest}{query}").parse() {
        Ok(uri) => uri,
        Err(_) => return ApiError::new(400, "invalid_request", "a bad path").into_response(),
    };
    match crate::http::router(engine).oneshot(Request::from_parts(parts, Body::new(body))).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// Serves the hub until `shutdown` completes.
pub async fn serve(
    hub: Arc<Hub>,
    listener: tokio::net::TcpListener,
    max_push_bytes: usize,
    timeout: Duration,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let stop = tokio_util::sync::CancellationToken::new();
    let app = router(hub, max_push_bytes, timeout, stop.clone());
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            stop.cancel();
        })
        .await
}

/// `/mcp` wants a read token, as the routes do.
async fn require_read(State(state): State<HubState>, request: Request, next: axum::middleware::Next) -> Response {
    match authorize(&state, request.headers(), Access::Read) {
        Ok(()) => next.run(request).await,
        Err(e) => e.into_response(),
    }
}

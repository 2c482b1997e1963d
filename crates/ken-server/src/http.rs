//! `ken serve`: the HTTP API (axum).
//!
//! Every handler validates its input before any work, runs the work on the
//! blocking pool under a concurrency limit and a deadline, and answers
//! errors as JSON with a 4xx or 5xx status; a panic becomes a 500, never a
//! dropped connection.

use crate::error::{ApiError, ErrorBody};
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::{StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ken_engine::Engine;
use ken_engine::api::*;
use serde::de::DeserializeOwned;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

#[derive(Clone)]
pub struct AppState {
    pub engine: Arc<Engine>,
    limit: Arc<Semaphore>,
    timeout: Duration,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(ErrorBody { error: self })).into_response()
    }
}

pub fn router(engine: Arc<Engine>) -> Router {
    let server = &engine.config.server;
    let state = AppState {
        limit: Arc::new(Semaphore::new(server.max_concurrent)),
        timeout: Duration::from_secs(server.request_timeout_secs),
        engine: engine.clone(),
    };
    let body_limit = server.max_body_bytes;
    Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/openapi.json", get(openapi))
        .route("/api/v1/hybrid-search", post(hybrid_search))
        .route("/api/v1/search", post(search))
        .route("/api/v1/locate", post(locate))
        .route("/api/v1/impact", post(impact))
        .route("/api/v1/plan", post(plan))
        .route("/api/v1/execute", post(execute))
        .route("/api/v1/context", post(context))
        .route("/api/v1/map", post(map))
        .route("/api/v1/ask", post(ask))
        .route("/api/v1/eval", post(eval))
        .route("/api/v1/plan-search", post(plan_search))
        .route("/api/v1/symbols", get(symbols))
        .route("/api/v1/symbol", get(symbol))
        .route("/api/v1/graph/{relation}", get(graph))
        .route("/api/v1/path", get(path))
        .route("/api/v1/untested", get(untested))
        .route("/api/v1/status", get(status))
        .route("/api/v1/index", post(reindex))
        .route("/api/v1/index/cancel", post(cancel_reindex))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(body_limit))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(|_| {
            ApiError::internal("the server hit a bug answering this request; it was logged, please report it").into_response()
        }))
        .with_state(state)
}

/// Runs `work` on the blocking pool, at most `max_concurrent` at a time,
/// within the request deadline.
async fn run<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Engine) -> Result<T, ken_engine::Error> + Send + 'static,
) -> Result<T, ApiError> {
    let deadline = tokio::time::Instant::now() + state.timeout;
    let permit = tokio::time::timeout_at(deadline, state.limit.clone().acquire_owned())
        .await
        .map_err(|_| ApiError::new(503, "overloaded", "the server is busy; retry shortly"))?
        .map_err(|_| ApiError::internal("the server is shutting down"))?;
    let engine = state.engine.clone();
    let task = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&engine)
    });
    match tokio::time::timeout_at(deadline, task).await {
        Err(_) => Err(ApiError::new(
            504,
            "timeout",
            format!("the request took longer than {} s; narrow the query or raise server.request_timeout_secs", state.timeout.as_secs()),
        )),
        Ok(Err(join)) => {
            tracing::error!("request failed: {join}");
            Err(ApiError::internal("the server hit a bug answering this request; it was logged, please report it"))
        }
        Ok(Ok(result)) => result.map_err(ApiError::from),
    }
}

async fn health() -> Json<Health> {
    Json(Health { status: "ok", version: env!("CARGO_PKG_VERSION") })
}

/// Ready when the index can be read.
async fn ready(State(state): State<AppState>) -> Response {
    match run(&state, |e| e.status()).await {
        Ok(status) => Json(serde_json::json!({ "ready": true, "files": status.stats.files })).into_response(),
        Err(mut e) => {
            e.status = 503;
            e.into_response()
        }
    }
}

async fn openapi() -> Json<serde_json::Value> {
    Json(crate::openapi::document())
}

async fn hybrid_search(State(state): State<AppState>, ApiJson(request): ApiJson<HybridSearchRequest>) -> Response {
    // Validate before queueing: a bad request never waits for a slot.
    if let Err(e) = request.validate().and_then(|_| state.engine.request_config(request.top_k, request.config_overrides.as_ref())) {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.hybrid_search(&request)).await)
}

async fn search(State(state): State<AppState>, ApiJson(request): ApiJson<SearchRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.search(&request)).await)
}

async fn locate(State(state): State<AppState>, ApiJson(request): ApiJson<LocateRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.locate(&request)).await)
}

async fn impact(State(state): State<AppState>, ApiJson(request): ApiJson<ImpactRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.impact(&request)).await)
}

async fn plan(State(state): State<AppState>, ApiJson(request): ApiJson<PlanRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.plan(&request)).await)
}

async fn context(State(state): State<AppState>, ApiJson(request): ApiJson<ContextRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.context(&request)).await)
}

async fn map(State(state): State<AppState>, ApiJson(request): ApiJson<MapRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    respond(run(&state, move |e| e.map(&request)).await)
}

/// A plan carried out runs the oracle (a type checker, a compiler) several times.
const EXECUTE_TIMEOUT: Duration = Duration::from_secs(3600);

async fn execute(State(state): State<AppState>, ApiJson(request): ApiJson<ExecuteRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    let state = AppState { timeout: state.timeout.max(EXECUTE_TIMEOUT), ..state };
    respond(run(&state, move |e| e.execute(&request)).await)
}

/// Generation outlasts a search: an answer gets at least this long.
const ASK_TIMEOUT: Duration = Duration::from_secs(600);

/// An evaluation indexes a scratch copy and runs hundreds of searches.
const EVAL_TIMEOUT: Duration = Duration::from_secs(1800);

async fn eval(State(state): State<AppState>, ApiJson(request): ApiJson<EvalRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    let state = AppState { timeout: state.timeout.max(EVAL_TIMEOUT), ..state };
    respond(run(&state, move |e| e.eval(&request)).await)
}

async fn ask(State(state): State<AppState>, ApiJson(request): ApiJson<AskRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    let state = AppState { timeout: state.timeout.max(ASK_TIMEOUT), ..state };
    respond(run(&state, move |e| e.ask(&request, &mut |_| {})).await)
}

async fn plan_search(State(state): State<AppState>, ApiJson(request): ApiJson<PlanSearchRequest>) -> Response {
    if let Err(e) = request.validate() {
        return ApiError::from(e).into_response();
    }
    // Several calls of the model: as long as an answer may take.
    let state = AppState { timeout: state.timeout.max(ASK_TIMEOUT), ..state };
    respond(run(&state, move |e| e.plan_search(&request)).await)
}

async fn symbols(State(state): State<AppState>, ApiQuery(request): ApiQuery<SymbolsRequest>) -> Response {
    respond(run(&state, move |e| e.symbols(&request)).await)
}

async fn symbol(State(state): State<AppState>, ApiQuery(request): ApiQuery<SymbolRequest>) -> Response {
    respond(run(&state, move |e| e.symbol(&request)).await)
}

async fn graph(State(state): State<AppState>, Path(relation): Path<String>, ApiQuery(request): ApiQuery<GraphRequest>) -> Response {
    let Some(relation) = GraphRelation::parse(&relation) else {
        let known: Vec<&str> = GraphRelation::ALL.iter().map(|r| r.as_str()).collect();
        return ApiError::new(404, "not_found", format!("no graph query `{relation}`; use one of: {}", known.join(", "))).into_response();
    };
    respond(run(&state, move |e| e.graph(relation, &request)).await)
}

async fn path(State(state): State<AppState>, ApiQuery(request): ApiQuery<PathRequest>) -> Response {
    respond(run(&state, move |e| e.path(&request)).await)
}

async fn untested(State(state): State<AppState>, ApiQuery(request): ApiQuery<UntestedRequest>) -> Response {
    respond(run(&state, move |e| e.untested(&request)).await)
}

async fn status(State(state): State<AppState>) -> Response {
    respond(run(&state, |e| e.status()).await)
}

async fn reindex(State(state): State<AppState>, body: Bytes) -> Response {
    // An empty body means the defaults.
    let request: ReindexRequest = if body.iter().all(u8::is_ascii_whitespace) {
        ReindexRequest::default()
    } else {
        match parse_json(&body) {
            Ok(r) => r,
            Err(e) => return e.into_response(),
        }
    };
    let engine = state.engine.clone();
    // Reindexing can take minutes: not bound by the request deadline.
    match tokio::task::spawn_blocking(move || engine.reindex(&request)).await {
        Ok(result) => respond(result.map_err(ApiError::from)),
        Err(_) => ApiError::internal("the reindex task failed; see the server log").into_response(),
    }
}

/// Stops the running reindex after its current batch; it answers 409 `cancelled`.
async fn cancel_reindex(State(state): State<AppState>) -> Response {
    let running = state.engine.cancel_index();
    axum::Json(serde_json::json!({ "cancelled": running })).into_response()
}

async fn not_found() -> ApiError {
    ApiError::new(404, "not_found", "no such endpoint; GET /openapi.json lists them")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(405, "method_not_allowed", "this endpoint does not take that method; GET /openapi.json lists them")
}

fn respond<T: serde::Serialize>(result: Result<T, ApiError>) -> Response {
    match result {
        Ok(value) => Json(value).into_response(),
        Err(e) => e.into_response(),
    }
}

/// A JSON body, with errors that name the field (`top_k: invalid type…`).
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json")));
        if !json {
            return Err(ApiError::new(415, "unsupported_media_type", "send the body as JSON with `Content-Type: application/json`"));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(413, "too_large", "the request body is too large; see server.max_body_bytes")
            } else {
                ApiError::new(400, "invalid_request", format!("cannot read the request body: {rejection}"))
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

pub(crate) fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        if matches!(e.inner().classify(), serde_json::error::Category::Data) {
            field_error(&e.path().to_string(), &e.inner().to_string())
        } else {
            ApiError::new(400, "invalid_json", format!("the body is not valid JSON: {}", e.inner()))
        }
    })?;
    de.end().map_err(|e| ApiError::new(400, "invalid_json", format!("the body is not valid JSON: {e}")))?;
    Ok(value)
}

/// A deserialization error, naming the field: the path serde reached (for
/// an unknown field, that is the field), or the field a "missing field"
/// message names.
fn field_error(path: &str, message: &str) -> ApiError {
    let path = if path == "." || path == "?" { "" } else { path };
    let missing = message.strip_prefix("missing field `").and_then(|m| m.split('`').next());
    let field = match (path, missing) {
        ("", Some(name)) => Some(name.to_string()),
        (p, Some(name)) => Some(format!("{p}.{name}")),
        ("", None) => None,
        (p, None) => Some(p.to_string()),
    };
    let message = match &field {
        Some(f) => format!("`{f}`: {message}"),
        None => format!("the request is not valid: {message}"),
    };
    ApiError { status: 400, code: "invalid_field", message, field }
}

/// Query-string parameters, with the same errors as [`ApiJson`].
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de).map(ApiQuery).map_err(|e| field_error(&e.path().to_string(), &e.inner().to_string()))
    }
}

/// Serves until `shutdown` completes: the API, and the MCP tools over
/// streamable HTTP at `/mcp`.
pub async fn serve(
    engine: Arc<Engine>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let stop = tokio_util::sync::CancellationToken::new();
    let app = router(engine.clone()).nest_service("/mcp", crate::mcp::http_service(crate::mcp::KenMcp::new(engine), stop.clone(), false));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            stop.cancel();
        })
        .await
}

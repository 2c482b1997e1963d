//! The OpenAPI 3.1 document of the HTTP API (`GET /openapi.json`). Schemas
//! come from the same types the handlers (de)serialize, through schemars, so
//! the document cannot drift from the code; the paths are listed here and a
//! test checks them against the router.

use crate::error::ErrorBody;
use ken_engine::api::*;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

/// Schema generators for request bodies (as deserialized) and responses
/// (as serialized), both filing their definitions under components.
fn generators() -> (schemars::SchemaGenerator, schemars::SchemaGenerator) {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    (settings.clone().for_deserialize().into_generator(), settings.for_serialize().into_generator())
}

fn ok(schema: &Value) -> Value {
    json!({ "description": "OK", "content": { "application/json": { "schema": schema } } })
}

fn error_response(what: &str, error: &Value) -> Value {
    json!({ "description": what, "content": { "application/json": { "schema": error } } })
}

fn body(schema: &Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

/// `/mcp`: JSON-RPC messages of the Model Context Protocol, whose shapes
/// its specification gives (and `tools/list` describes each tool's).
fn mcp_operation(summary: &str) -> Value {
    json!({ "summary": summary, "operationId": "mcp",
        "externalDocs": { "url": "https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http" },
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object",
            "description": "A JSON-RPC 2.0 request, notification or response" } } } },
        "responses": { "200": { "description": "A JSON-RPC response, as JSON or as an event stream" },
            "202": { "description": "A notification or response was accepted" } } })
}

pub fn document() -> Value {
    let (mut requests, mut responses) = generators();
    let req = |schema: schemars::Schema| schema.to_value();
    let hybrid_request = req(requests.subschema_for::<HybridSearchRequest>());
    let search_request = req(requests.subschema_for::<SearchRequest>());
    let reindex_request = req(requests.subschema_for::<ReindexRequest>());
    let locate_request = req(requests.subschema_for::<LocateRequest>());
    let impact_request = req(requests.subschema_for::<ImpactRequest>());
    let plan_graph_request = req(requests.subschema_for::<PlanRequest>());
    let execute_request = req(requests.subschema_for::<ken_engine::api::ExecuteRequest>());
    let context_request = req(requests.subschema_for::<ken_engine::api::ContextRequest>());
    let map_request = req(requests.subschema_for::<ken_engine::api::MapRequest>());
    let ask_request = req(requests.subschema_for::<AskRequest>());
    let plan_request = req(requests.subschema_for::<PlanSearchRequest>());
    let eval_request = req(requests.subschema_for::<EvalRequest>());
    let pipeline = responses.subschema_for::<ken_engine::api::PipelineResponse>().to_value();
    let search = responses.subschema_for::<ken_engine::api::SearchResponse>().to_value();
    let located = responses.subschema_for::<ken_engine::api::LocateResponse>().to_value();
    let impacted = responses.subschema_for::<ImpactResponse>().to_value();
    let plan_graph = responses.subschema_for::<PlanGraph>().to_value();
    let executed = responses.subschema_for::<ken_engine::api::ExecuteResponse>().to_value();
    let packed = responses.subschema_for::<ken_engine::api::ContextPack>().to_value();
    let mapped = responses.subschema_for::<ken_engine::api::RepoMap>().to_value();
    let answered = responses.subschema_for::<AskResponse>().to_value();
    let planned = responses.subschema_for::<PlanSearchResponse>().to_value();
    let evaluated = responses.subschema_for::<EvalReport>().to_value();
    let symbols = responses.subschema_for::<Vec<ken_engine::api::SymbolRow>>().to_value();
    let symbol = responses.subschema_for::<SymbolDetail>().to_value();
    let traversal = responses.subschema_for::<ken_engine::api::Traversal>().to_value();
    let path_found = responses.subschema_for::<PathResponse>().to_value();
    let untested = responses.subschema_for::<UntestedResponse>().to_value();
    let status = responses.subschema_for::<StatusResponse>().to_value();
    let health = responses.subschema_for::<Health>().to_value();
    let error = responses.subschema_for::<ErrorBody>().to_value();
    let mut schemas = requests.take_definitions(true);
    schemas.extend(responses.take_definitions(true));

    let err = |what: &str| error_response(what, &error);
    let query = |name: &str, required: bool, schema: Value, description: &str| json!({ "name": name, "in": "query", "required": required, "schema": schema, "description": description });
    let errors = |op: &mut Value| {
        let responses = op["responses"].as_object_mut().expect("responses object");
        responses.insert("400".into(), err("Invalid request; `error.field` names the field"));
        responses.insert("503".into(), err("No index yet, or the index is busy"));
    };
    let mut hybrid = json!({
        "summary": "The five-stage pipeline: seeds, graph or LSP expansion, clustering, reranking",
        "operationId": "hybridSearch",
        "requestBody": body(&hybrid_request),
        "responses": { "200": ok(&pipeline), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut hybrid);
    let mut plain = json!({
        "summary": "Hybrid retrieval alone: dense + BM25 + exact names",
        "operationId": "search",
        "requestBody": body(&search_request),
        "responses": { "200": ok(&search), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut plain);
    let mut locate = json!({
        "summary": "Bug localization: a whole report in, the files and functions to change out, with the evidence for each",
        "operationId": "locate",
        "requestBody": body(&locate_request),
        "responses": { "200": ok(&located), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut locate);
    let mut impact = json!({
        "summary": "Change planning (CodePlan): a change classified into atomic changes, and the blocks that may have to change with it, each with the rule that reaches it",
        "operationId": "impact",
        "requestBody": body(&impact_request),
        "responses": { "200": ok(&impacted), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut impact);
    let mut plan_op = json!({
        "summary": "CodePlan's plan graph: seed blocks (or edits already made) and the obligations the may-impact rules derive from them",
        "operationId": "plan",
        "requestBody": body(&plan_graph_request),
        "responses": { "200": ok(&plan_graph), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut plan_op);
    let mut execute = json!({
        "summary": "CodePlan's adaptive plan-and-execute loop: the plan's blocks edited in a scratch copy, each edit's obligations added, the oracle's new errors repaired for bounded rounds; the patch, applied only on request",
        "operationId": "execute",
        "requestBody": body(&execute_request),
        "responses": { "200": ok(&executed), "409": err("A file changed while the plan ran (`apply`)"), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut execute);
    let mut context = json!({
        "summary": "A context pack: the code a task needs within a token budget (definitions whole, neighbours' signatures, import headers), labelled path:start-end",
        "operationId": "context",
        "requestBody": body(&context_request),
        "responses": { "200": ok(&packed), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut context);
    let mut map = json!({
        "summary": "A repository map: the most important definitions' signatures with their lines, ranked by PageRank (personalised to `focus`), within a token budget",
        "operationId": "map",
        "requestBody": body(&map_request),
        "responses": { "200": ok(&mapped), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut map);
    let mut ask = json!({
        "summary": "A question answered by the language model from retrieved code, each claim cited as path:start-end (citations checked against the index); without a model, the retrieved code and a note",
        "operationId": "ask",
        "requestBody": body(&ask_request),
        "responses": { "200": ok(&answered), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut ask);
    let mut eval_op = json!({
        "summary": "Retrieval measured on the repository's own names and docstrings (docstrings blanked in a scratch copy): MRR@10, Recall@10 and latency per mode, without each lane, and for ranking settings to compare",
        "operationId": "eval",
        "requestBody": body(&eval_request),
        "responses": { "200": ok(&evaluated), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut eval_op);
    let mut plan = json!({
        "summary": "Plan search (MutaGReP): the language model proposes plans for a feature request in plain steps, retrieval grounds each step in the repository's symbols, and the best-grounded plan is returned",
        "operationId": "planSearch",
        "requestBody": body(&plan_request),
        "responses": { "200": ok(&planned), "413": err("Body too large"), "415": err("Body is not JSON") },
    });
    errors(&mut plan);
    let mut find = json!({
        "summary": "Symbols by exact or partial name",
        "operationId": "symbols",
        "parameters": [
            query("name", true, json!({"type": "string"}), "Name, part of a name, or qualified suffix"),
            query("kind", false, json!({"type": "string"}), "Only this kind"),
            query("lang", false, json!({"type": "string"}), "Only this language"),
            query("limit", false, json!({"type": "integer", "minimum": 1, "maximum": 1000}), "At most this many"),
        ],
        "responses": { "200": ok(&symbols) },
    });
    errors(&mut find);
    let mut one = json!({
        "summary": "One symbol with its code and analytics",
        "operationId": "symbol",
        "parameters": [query("symbol", true, json!({"type": "string"}), "Qualified name, unique name, or PATH:LINE")],
        "responses": { "200": ok(&symbol), "404": err("No such symbol"), "409": err("The name is ambiguous") },
    });
    errors(&mut one);
    let relations: Vec<&str> = GraphRelation::ALL.iter().map(|r| r.as_str()).collect();
    let mut walk = json!({
        "summary": "Graph queries: callers, callees, subclasses, superclasses, refs, tests, overrides",
        "operationId": "graph",
        "parameters": [
            { "name": "relation", "in": "path", "required": true, "schema": { "type": "string", "enum": relations } },
            query("symbol", true, json!({"type": "string"}), "Qualified name, unique name, or PATH:LINE"),
            query("depth", false, json!({"type": "integer", "minimum": 1, "maximum": 32}), "Steps (callers, callees, tests)"),
        ],
        "responses": { "200": ok(&traversal), "404": err("No such symbol or relation"), "409": err("The name is ambiguous") },
    });
    errors(&mut walk);
    let mut path = json!({
        "summary": "How one symbol reaches another: calls, instantiations, uses, overrides and inheritance, hop by hop",
        "operationId": "path",
        "parameters": [
            query("from", true, json!({"type": "string"}), "Qualified name, unique name, or PATH:LINE"),
            query("to", true, json!({"type": "string"}), "Qualified name, unique name, or PATH:LINE"),
            query("max_depth", false, json!({"type": "integer", "minimum": 1, "maximum": 32}), "Longest chain (default 12)"),
        ],
        "responses": { "200": ok(&path_found), "404": err("No such symbol"), "409": err("A name is ambiguous") },
    });
    errors(&mut path);
    let mut untested_op = json!({
        "summary": "Public functions and methods no test reaches, most important first",
        "operationId": "untested",
        "parameters": [query("limit", false, json!({"type": "integer", "minimum": 1, "maximum": 10000}), "At most this many (default 50)")],
        "responses": { "200": ok(&untested) },
    });
    errors(&mut untested_op);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Kenning",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Search and understand a code repository: hybrid retrieval, the CodexLens pipeline, symbols and the dependency graph.",
        },
        "paths": {
            "/health": { "get": { "summary": "Liveness", "operationId": "health", "responses": { "200": ok(&health) } } },
            "/mcp": { "post": mcp_operation("The MCP tools (those of `ken mcp`) over streamable HTTP; from loopback host names only") },
            "/ready": { "get": { "summary": "Readiness: the index can be read", "operationId": "ready",
                "responses": { "200": { "description": "Ready" }, "503": err("Not ready") } } },
            "/openapi.json": { "get": { "summary": "This document", "operationId": "openapi", "responses": { "200": { "description": "OK" } } } },
            "/api/v1/hybrid-search": { "post": hybrid },
            "/api/v1/search": { "post": plain },
            "/api/v1/locate": { "post": locate },
            "/api/v1/impact": { "post": impact },
            "/api/v1/plan": { "post": plan_op },
            "/api/v1/execute": { "post": execute },
            "/api/v1/context": { "post": context },
            "/api/v1/map": { "post": map },
            "/api/v1/ask": { "post": ask },
            "/api/v1/eval": { "post": eval_op },
            "/api/v1/plan-search": { "post": plan },
            "/api/v1/symbols": { "get": find },
            "/api/v1/symbol": { "get": one },
            "/api/v1/graph/{relation}": { "get": walk },
            "/api/v1/path": { "get": path },
            "/api/v1/untested": { "get": untested_op },
            "/api/v1/status": { "get": { "summary": "Index, embeddings and language servers", "operationId": "status",
                "responses": { "200": ok(&status), "503": err("No index") } } },
            "/api/v1/index": { "post": {
                "summary": "Bring the index up to date (runs `ken index`)", "operationId": "reindex",
                "requestBody": { "required": false, "content": { "application/json": { "schema": reindex_request } } },
                "responses": { "200": { "description": "The index summary" }, "400": err("Invalid request"),
                    "409": err("The run was cancelled (`cancelled`)"), "500": err("Indexing failed") } } },
            "/api/v1/index/cancel": { "post": {
                "summary": "Stop the running reindex after its current batch; what it stored stays", "operationId": "cancelReindex",
                "responses": { "200": { "description": "`{\"cancelled\": true}` when a reindex was running",
                    "content": { "application/json": { "schema": { "type": "object", "properties": { "cancelled": { "type": "boolean" } },
                        "required": ["cancelled"] } } } } } } },
        },
        "components": { "schemas": Value::Object(schemas) },
    })
}

/// The team hub's OpenAPI 3.1 document (`ken serve --hub`, `GET /openapi.json`).
pub fn hub_document() -> Value {
    use ken_engine::hub::{HubSearchRequest, HubSearchResponse, PushRequest, PushSummary, RepoInfo, RepoManifest};
    let (mut requests, mut responses) = generators();
    let push_request = requests.subschema_for::<PushRequest>().to_value();
    let search_request = requests.subschema_for::<HubSearchRequest>().to_value();
    let pushed = responses.subschema_for::<PushSummary>().to_value();
    let repos = responses.subschema_for::<Vec<RepoInfo>>().to_value();
    let manifest = responses.subschema_for::<RepoManifest>().to_value();
    let found = responses.subschema_for::<HubSearchResponse>().to_value();
    let error = responses.subschema_for::<ErrorBody>().to_value();
    let mut schemas = requests.take_definitions(true);
    schemas.extend(responses.take_definitions(true));
    let err = |what: &str| error_response(what, &error);
    let repo = json!({ "name": "repo", "in": "path", "required": true, "schema": { "type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$" } });
    let auth = |mut op: Value| {
        let responses = op["responses"].as_object_mut().expect("responses object");
        responses.insert("401".into(), err("No token, or one the hub does not know"));
        responses.insert("400".into(), err("Invalid request; `error.field` names the field"));
        op["security"] = json!([{ "bearer": [] }]);
        op
    };
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Kenning hub",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Repositories pushed from CI (`ken push`), searched together. Every route but /health and /openapi.json wants a bearer token (`ken hub token`). A repository's own read routes answer under /api/v1/repos/{repo}/ (search, hybrid-search, locate, context, map, symbols, symbol, graph/{relation}, path, untested, status, impact, plan), as in `ken serve`'s document.",
        },
        "paths": {
            "/health": { "get": { "summary": "Liveness", "operationId": "health", "responses": { "200": { "description": "OK" } } } },
            "/mcp": { "post": auth(mcp_operation("The hub's MCP tools over streamable HTTP: `repos`, `search` over many repositories, and one repository's read tools (a read token)")) },
            "/openapi.json": { "get": { "summary": "This document", "operationId": "openapi", "responses": { "200": { "description": "OK" } } } },
            "/api/v1/repos": { "get": auth(json!({ "summary": "The repositories pushed, with their live versions", "operationId": "repos",
                "responses": { "200": ok(&repos) } })) },
            "/api/v1/repos/{repo}/manifest": { "get": auth(json!({ "summary": "The live version's file hashes: what a push diffs against",
                "operationId": "manifest", "parameters": [repo.clone()], "responses": { "200": ok(&manifest) } })) },
            "/api/v1/repos/{repo}/push": { "post": auth(json!({
                "summary": "Apply a push: all of it becomes the next version, or none (a push token; the body may be zstd with Content-Encoding: zstd)",
                "operationId": "push", "parameters": [repo], "requestBody": body(&push_request),
                "responses": { "200": ok(&pushed), "403": err("A read token"), "409": err("Another version is live: diff again"),
                    "413": err("Too large"), "415": err("An unknown Content-Encoding") } })) },
            "/api/v1/search": { "post": auth(json!({ "summary": "One search over the named repositories (all when none are named)",
                "operationId": "search", "requestBody": body(&search_request), "responses": { "200": ok(&found), "404": err("No such repository") } })) },
        },
        "components": {
            "schemas": Value::Object(schemas),
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
        },
    })
}

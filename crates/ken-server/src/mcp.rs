//! `ken mcp`: the MCP server over stdio (the official Rust SDK, rmcp).
//!
//! Tools take the same shapes as the HTTP API and answer JSON text. A bad
//! argument is a JSON-RPC `invalid_params` error naming the field; a failure
//! while answering (no index, unknown symbol) is a tool result with
//! `isError`, so the agent reads the message and can act on it.

use ken_engine::Engine;
use ken_engine::api::*;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[derive(Clone)]
pub struct KenMcp {
    engine: Arc<Engine>,
    tool_router: ToolRouter<Self>,
}

/// Arguments of tools that need none.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArguments {}

pub(crate) type ToolResult = Result<CallToolResult, ErrorData>;

/// Runs blocking engine work off the async threads and shapes its answer:
/// JSON text; a bad field as `invalid_params`; any other failure as a
/// result with `isError`, which the agent reads.
pub(crate) async fn blocking_tool<T: serde::Serialize + Send + 'static>(
    work: impl FnOnce() -> Result<T, ken_engine::Error> + Send + 'static,
) -> ToolResult {
    let result = tokio::task::spawn_blocking(work).await.map_err(|e| ErrorData::internal_error(format!("the tool failed: {e}"), None))?;
    match result {
        Ok(value) => {
            let text = serde_json::to_string_pretty(&value)
                .map_err(|e| ErrorData::internal_error(format!("cannot encode the answer: {e}"), None))?;
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        }
        Err(e) if e.kind == ken_engine::ErrorKind::InvalidField => {
            Err(ErrorData::invalid_params(e.to_string(), Some(serde_json::json!({ "code": e.kind.code(), "field": e.field }))))
        }
        Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(e.to_string())])),
    }
}

impl KenMcp {
    pub fn new(engine: Arc<Engine>) -> KenMcp {
        KenMcp { engine, tool_router: Self::tool_router() }
    }

    /// Runs blocking engine work; shapes its answer or error for MCP.
    async fn call<T: serde::Serialize + Send + 'static>(
        &self,
        work: impl FnOnce(&Engine) -> Result<T, ken_engine::Error> + Send + 'static,
    ) -> ToolResult {
        let engine = self.engine.clone();
        blocking_tool(move || work(&engine)).await
    }

    async fn walk(&self, relation: GraphRelation, request: GraphRequest) -> ToolResult {
        self.call(move |e| e.graph(relation, &request)).await
    }
}

#[tool_router]
impl KenMcp {
    #[tool(description = "Search the repository's code: a question, a description or a name. Hybrid retrieval \
        (semantic + BM25 + exact identifiers); returns ranked functions, classes and chunks with path, lines and a snippet.")]
    async fn search(&self, Parameters(request): Parameters<SearchRequest>) -> ToolResult {
        self.call(move |e| e.search(&request)).await
    }

    #[tool(description = "The full hybrid pipeline: retrieval seeds, expansion over the dependency graph (or live \
        language servers with config_overrides.expansion = \"lsp\"), Louvain clustering and reranking. Returns clusters \
        of related symbols with their code; explain = true says why each symbol is there.")]
    async fn hybrid_search(&self, Parameters(request): Parameters<HybridSearchRequest>) -> ToolResult {
        self.call(move |e| e.hybrid_search(&request)).await
    }

    #[tool(description = "Bug localization: give a whole bug report (title, description, stack traces, code, as \
        written) and get the files most likely to need the fix, best first, each with the functions and classes most \
        likely to change and the evidence for each (which frame, path, name, message or passage matched); `functions` \
        lists those functions across files, best first.")]
    async fn locate(&self, Parameters(request): Parameters<LocateRequest>) -> ToolResult {
        self.call(move |e| e.locate(&request)).await
    }

    #[tool(description = "Change impact (CodePlan): classify a change into atomic changes (method body or \
        signature, field, class declaration, constructor, import; added, modified, deleted) and list the blocks that may \
        have to change with it, each with the rule that reaches it (`Rel(D, M, CalledBy)`) and the call or use site. The \
        change is the working tree against `rev` (default HEAD), the staged files (`staged`), named files against their \
        indexed version (`paths`, outside git), or given whole (`files`: path, before, after). `depth` follows each \
        relation further.")]
    async fn impact(&self, Parameters(request): Parameters<ImpactRequest>) -> ToolResult {
        self.call(move |e| e.impact(&request)).await
    }

    #[tool(description = "CodePlan's plan graph for a change: give the instruction and the blocks to edit \
        (`seeds`: qualified names or PATH:LINE) with the kind of change they will get (`assume`: MMS for a signature, \
        MMB for a body, DM for a deletion…), or the edits already made (`seed_diff`, as for `impact`). Returns nodes \
        ⟨block, instruction, status⟩ in plan order and edges carrying the rule that made each obligation.")]
    async fn plan(&self, Parameters(request): Parameters<PlanRequest>) -> ToolResult {
        self.call(move |e| e.plan(&request)).await
    }

    #[tool(description = "The code a task needs, within a token budget: the most relevant definitions whole, \
        the signatures of their callers, callees and base classes, and their files' import headers; pieces of one file \
        merged by line, each labelled path:start-end, ordered strongest first and last. `budget` in tokens (default \
        8192) counted by `tokenizer` (`o200k` default, or `cl100k`). Call it before editing, with the task in words.")]
    async fn context(&self, Parameters(request): Parameters<ContextRequest>) -> ToolResult {
        self.call(move |e| e.context(&request)).await
    }

    #[tool(description = "A repository map: the most important definitions' signatures, one line each with its \
        line number, nested under their classes and grouped by file, within a token budget (`budget`, default 2048, \
        counted by `tokenizer`). Ranked by PageRank over the dependency graph; `focus` (paths, directories or symbol \
        names) personalises it to what those use and what uses them. Test code is left out unless `tests`. Call it \
        first in an unfamiliar repository, or with the files you are about to edit.")]
    async fn map(&self, Parameters(request): Parameters<MapRequest>) -> ToolResult {
        self.call(move |e| e.map(&request)).await
    }

    #[tool(description = "Carry out a plan (CodePlan's adaptive plan-and-execute loop): the plan's pending \
        blocks are edited one by one in a scratch copy of the repository, each edit is classified and the obligations it \
        derives join the plan; then the oracle (`pyright`, `tsc`, `cargo`, `go`, `mypy`) runs and its new errors seed \
        more rounds (`rounds`). `editor`: `structural` (default: parameters added or removed and renames carried to the \
        calls, overrides given the base's signature) or `llm`. `strategy`: `plan` or `repair` (oracle only). Returns the \
        final plan, each edit as a diff, the oracle rounds, `passed`, and the whole patch; `apply` writes it to the files.")]
    async fn execute(&self, Parameters(request): Parameters<ExecuteRequest>) -> ToolResult {
        self.call(move |e| e.execute(&request)).await
    }

    #[tool(description = "Ask a question about the code: the language model answers from retrieved code and \
        cites path:start-end for each claim; citations to lines it was not shown are removed and counted. Returns the \
        answer, its citations, the code it read (context) and notes. Without a configured model, returns the retrieved \
        code and a note.")]
    async fn ask(&self, Parameters(request): Parameters<AskRequest>) -> ToolResult {
        self.call(move |e| e.ask(&request, &mut |_| {})).await
    }

    #[tool(description = "Plan a change: give a feature request in words and get a plan of steps (\"I want to …\"), \
        each grounded in the repository's functions and classes (path, lines, how well they fit), found by a search \
        over plans the language model proposes (MutaGReP). Without a model, the request itself as one grounded step.")]
    async fn plan_search(&self, Parameters(request): Parameters<PlanSearchRequest>) -> ToolResult {
        self.call(move |e| e.plan_search(&request)).await
    }

    #[tool(description = "Measure retrieval on this repository before tuning it: its own definitions' names and \
        docstrings (blanked in a scratch copy) as queries, and for each mode (hybrid, semantic, lexical, exact, \
        pipeline), hybrid without each lane, and each `compare` setting (`key = value, …` over [search.ranking]) its \
        MRR@10, Recall@10 and p50/p95 latency. Takes seconds to minutes: it indexes the copy.")]
    async fn eval(&self, Parameters(request): Parameters<EvalRequest>) -> ToolResult {
        self.call(move |e| e.eval(&request)).await
    }

    #[tool(description = "Find symbols by exact or partial name (case-insensitive, exact matches first).")]
    async fn find_symbols(&self, Parameters(request): Parameters<SymbolsRequest>) -> ToolResult {
        self.call(move |e| e.symbols(&request)).await
    }

    #[tool(description = "One symbol with its full code, signature, docstring, location and graph metrics. \
        Name it by qualified name, unique name, or PATH:LINE.")]
    async fn symbol(&self, Parameters(request): Parameters<SymbolRequest>) -> ToolResult {
        self.call(move |e| e.symbol(&request)).await
    }

    #[tool(description = "Functions and methods that call a symbol (or instantiate its class), up to `depth` steps.")]
    async fn callers(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Callers, request).await
    }

    #[tool(description = "Functions, methods and classes a symbol calls or instantiates, up to `depth` steps.")]
    async fn callees(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Callees, request).await
    }

    #[tool(description = "Classes derived from a class, transitively.")]
    async fn subclasses(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Subclasses, request).await
    }

    #[tool(description = "The classes a class derives from (and the traits or interfaces it implements), transitively.")]
    async fn superclasses(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Superclasses, request).await
    }

    #[tool(description = "The tests that reach a symbol: test functions that call it, directly or through up to \
        `depth` steps of callers (default 1). Empty hits mean no test reaches it.")]
    async fn tests(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Tests, request).await
    }

    #[tool(description = "A file's symbol tree: its classes, functions, methods, fields and constants in file \
        order, each with its kind, signature, lines and container. `path` as the index spells it (repository-relative).")]
    async fn outline(&self, Parameters(request): Parameters<OutlineRequest>) -> ToolResult {
        self.call(move |e| e.outline(&request)).await
    }

    #[tool(description = "Grep the indexed files: the lines matching `pattern` (a regular expression in Rust's \
        regex syntax, or a plain string with `literal`), as path, line and text, in path order. `case_insensitive`, \
        `path` (only files under it) and `limit` (default 100) narrow it. Searches the text as indexed, so line numbers \
        agree with every other tool.")]
    async fn grep(&self, Parameters(request): Parameters<GrepRequest>) -> ToolResult {
        self.call(move |e| e.grep(&request)).await
    }

    #[tool(description = "The methods a method overrides (relation `Overrides`, up the class hierarchy) and the \
        methods overriding it (`OverriddenBy`, down), transitively, each with its path and line: what a change to its \
        signature must keep in step.")]
    async fn overrides(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Overrides, request).await
    }

    #[tool(description = "How one symbol reaches another: the chain of calls, instantiations, uses, overrides and \
        inheritance from `from` to `to`, hop by hop with the path and line each is seen at; `path` is null when \
        there is none within `max_depth` (default 12). Names as qualified names, unique names, or PATH:LINE.")]
    async fn path(&self, Parameters(request): Parameters<PathRequest>) -> ToolResult {
        self.call(move |e| e.path(&request)).await
    }

    #[tool(description = "Public functions and methods no test reaches (through calls, or a test of a subclass), \
        most important first by PageRank, with their path and lines, and how many there are in all. `limit` \
        (default 50) caps the list.")]
    async fn untested(&self, Parameters(request): Parameters<UntestedRequest>) -> ToolResult {
        self.call(move |e| e.untested(&request)).await
    }

    #[tool(description = "Every place a symbol is used (calls, imports, instantiations, field uses, inheritance).")]
    async fn refs(&self, Parameters(request): Parameters<GraphRequest>) -> ToolResult {
        self.walk(GraphRelation::Refs, request).await
    }

    #[tool(description = "What the index holds: files, symbols, chunks, embedding progress, model, language servers.")]
    async fn index_status(&self, Parameters(_): Parameters<NoArguments>) -> ToolResult {
        self.call(|e| e.status()).await
    }

    #[tool(description = "Bring the index up to date with the files on disk (incremental; rebuild = true starts over).")]
    async fn reindex(&self, Parameters(request): Parameters<ReindexRequest>) -> ToolResult {
        self.call(move |e| e.reindex(&request)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for KenMcp {
    fn get_info(&self) -> ServerConfig {
        let server = Implementation::new("kenning", env!("CARGO_PKG_VERSION")).with_title("Kenning");
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(server).with_instructions(
            "Kenning answers questions about this repository's code. Start with `search` (or `hybrid_search` for \
             clusters of related code; `locate` for a whole bug report; `ask` for an answer in prose with citations), then `symbol` for a definition's full code, and `callers`, `callees`, \
             `subclasses` and `refs` to follow the dependency graph. In an unfamiliar repository, `map` lists the \
             definitions that matter. Before an edit, `context` packs the code a task needs into a token budget. Before or after an edit, `impact` lists what else may have to change (with the rule and \
             the call site), `plan` lays the change out as a graph of obligations, and `execute` carries it out in a scratch \
             copy, checked by a type checker, and returns the patch.",
        )
    }
}

/// MCP over streamable HTTP, for a server's `/mcp`: a session per client,
/// all ended when `stop` is cancelled (else open event streams would keep
/// a graceful shutdown waiting). `any_host`: accept any `Host` header, for
/// a server behind tokens (the hub); otherwise loopback names only, which
/// keeps a local server out of reach of DNS rebinding.
pub(crate) fn http_service<S>(server: S, stop: CancellationToken, any_host: bool) -> StreamableHttpService<S, LocalSessionManager>
where
    S: ServerHandler + Clone + Send + 'static,
{
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop;
    if any_host {
        config = config.disable_allowed_hosts();
    }
    StreamableHttpService::new(move || Ok(server.clone()), Arc::new(LocalSessionManager::default()), config)
}

/// Serves MCP on stdin/stdout until the client disconnects.
pub async fn serve_stdio(engine: Arc<Engine>) -> Result<(), String> {
    let service = KenMcp::new(engine).serve(rmcp::transport::stdio()).await.map_err(|e| format!("the MCP session failed to start: {e}"))?;
    service.waiting().await.map_err(|e| format!("the MCP session ended abnormally: {e}"))?;
    Ok(())
}

//! The team hub's MCP tools (`ken serve --hub`, streamable HTTP at `/mcp`,
//! behind the hub's bearer tokens): one search over many repositories, the
//! list of repositories, and one repository's read tools, each call naming
//! its repository. The shapes are the single-repository tools' own, with a
//! `repo` field beside them.

use crate::mcp::{NoArguments, ToolResult, blocking_tool};
use ken_engine::api::*;
use ken_engine::hub::{Hub, HubSearchRequest};
use ken_engine::{Engine, Error};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

#[derive(Clone)]
pub struct HubMcp {
    hub: Arc<Hub>,
    tool_router: ToolRouter<Self>,
}

/// A single-repository tool's arguments, and the repository on the hub.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InRepo<T> {
    /// The repository, as `repos` lists it.
    pub repo: String,
    #[serde(flatten)]
    pub request: T,
}

impl HubMcp {
    pub fn new(hub: Arc<Hub>) -> HubMcp {
        HubMcp { hub, tool_router: Self::tool_router() }
    }

    /// Runs `work` on the live index of `repo`.
    async fn in_repo<T: serde::Serialize + Send + 'static>(
        &self,
        repo: String,
        work: impl FnOnce(&Engine) -> Result<T, Error> + Send + 'static,
    ) -> ToolResult {
        let hub = self.hub.clone();
        blocking_tool(move || work(&*hub.engine(&repo)?)).await
    }

    async fn walk(&self, relation: GraphRelation, args: InRepo<GraphRequest>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.graph(relation, &args.request)).await
    }
}

#[tool_router]
impl HubMcp {
    #[tool(description = "The repositories pushed to this hub, with their live versions and file counts.")]
    async fn repos(&self, Parameters(_): Parameters<NoArguments>) -> ToolResult {
        let hub = self.hub.clone();
        blocking_tool(move || hub.repos()).await
    }

    #[tool(description = "Search the code of several repositories at once (all of them when `repos` is empty): a question, \
        a description or a name. Hybrid retrieval (semantic + BM25 + exact identifiers) in each, merged by score; every \
        hit names its repository, path, lines and a snippet.")]
    async fn search(&self, Parameters(request): Parameters<HubSearchRequest>) -> ToolResult {
        let hub = self.hub.clone();
        blocking_tool(move || hub.search(&request)).await
    }

    #[tool(description = "One repository's full hybrid pipeline: retrieval seeds, expansion over its dependency graph, \
        clusters of related code, reranked.")]
    async fn hybrid_search(&self, Parameters(args): Parameters<InRepo<HybridSearchRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.hybrid_search(&args.request)).await
    }

    #[tool(description = "Bug localization in one repository: give a whole bug report (title, description, stack traces, \
        code); get the files and functions most likely to change, with the evidence for each.")]
    async fn locate(&self, Parameters(args): Parameters<InRepo<LocateRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.locate(&args.request)).await
    }

    #[tool(description = "The code a task needs from one repository, within a token budget: the most relevant \
        definitions whole, the rest as signatures.")]
    async fn context(&self, Parameters(args): Parameters<InRepo<ContextRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.context(&args.request)).await
    }

    #[tool(description = "A map of one repository: its most important definitions' signatures, one line each, within \
        a token budget (optionally centred on `focus` paths or symbols).")]
    async fn map(&self, Parameters(args): Parameters<InRepo<MapRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.map(&args.request)).await
    }

    #[tool(description = "Find symbols of one repository by exact or partial name (case-insensitive, exact matches first).")]
    async fn find_symbols(&self, Parameters(args): Parameters<InRepo<SymbolsRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.symbols(&args.request)).await
    }

    #[tool(description = "One symbol of one repository with its full code, signature, docstring, location and graph metrics.")]
    async fn symbol(&self, Parameters(args): Parameters<InRepo<SymbolRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.symbol(&args.request)).await
    }

    #[tool(description = "Functions and methods of one repository that call a symbol (or instantiate its class), up to \
        `depth` steps.")]
    async fn callers(&self, Parameters(args): Parameters<InRepo<GraphRequest>>) -> ToolResult {
        self.walk(GraphRelation::Callers, args).await
    }

    #[tool(description = "Functions, methods and classes a symbol of one repository calls or instantiates, up to `depth` steps.")]
    async fn callees(&self, Parameters(args): Parameters<InRepo<GraphRequest>>) -> ToolResult {
        self.walk(GraphRelation::Callees, args).await
    }

    #[tool(description = "Every place a symbol of one repository is used (calls, imports, instantiations, field uses, \
        inheritance).")]
    async fn refs(&self, Parameters(args): Parameters<InRepo<GraphRequest>>) -> ToolResult {
        self.walk(GraphRelation::Refs, args).await
    }

    #[tool(description = "Classes derived from a class of one repository, transitively.")]
    async fn subclasses(&self, Parameters(args): Parameters<InRepo<GraphRequest>>) -> ToolResult {
        self.walk(GraphRelation::Subclasses, args).await
    }

    #[tool(description = "A file's symbol tree in one repository: its classes, functions, methods, fields and constants \
        in file order, with lines and signatures.")]
    async fn outline(&self, Parameters(args): Parameters<InRepo<OutlineRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.outline(&args.request)).await
    }

    #[tool(description = "Grep one repository's indexed files: the lines matching `pattern` (a regular expression in \
        Rust's syntax), with their enclosing symbols.")]
    async fn grep(&self, Parameters(args): Parameters<InRepo<GrepRequest>>) -> ToolResult {
        self.in_repo(args.repo, move |e| e.grep(&args.request)).await
    }

    #[tool(description = "What the hub's index of one repository holds: files, symbols, chunks, embedding progress, model.")]
    async fn index_status(&self, Parameters(args): Parameters<InRepo<NoArguments>>) -> ToolResult {
        self.in_repo(args.repo, |e| e.status()).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for HubMcp {
    fn get_info(&self) -> ServerConfig {
        let server = Implementation::new("kenning-hub", env!("CARGO_PKG_VERSION")).with_title("Kenning hub");
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(server).with_instructions(
            "A Kenning hub holds many repositories' indexes, pushed from CI. `repos` lists them. `search` looks \
             through several or all of them at once, and each hit names its repository. Then pass that `repo` to \
             `symbol` for a definition's full code, to `callers`, `callees`, `refs` and `subclasses` to follow its \
             dependency graph, to `locate` with a whole bug report, or to `context` and `map` for the code a task needs.",
        )
    }
}

//! The service behind `ken serve` and `ken mcp`: one open index, the
//! embedding model and the language servers, shared by every request.
//! Methods block (SQLite, Qdrant Edge, ONNX); callers run them on
//! `spawn_blocking`. Each request opens its own read-only SQLite connection
//! (cheap, and never blocked by a writer); the shard and the model are
//! opened once, on first use.

use crate::api::*;
use crate::error::ApiError;
use ken_embed::{Embedder, ModelSpec, Resolver};
use ken_lsp::{LspBridge, LspConfig, ServerSpec};
use ken_pipeline::{Expansion, Live, Overrides, Pipeline, PipelineConfig, PipelineResponse, Source};
use ken_search::{Mode, SearchOptions, SearchResponse, Searcher, VectorShard};
use ken_store::{Store, SymbolQuery};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub struct EngineOptions {
    pub index_dir: PathBuf,
    pub config: PipelineConfig,
    /// The model to embed queries with; `None`: the one the index was embedded with.
    pub model: Option<(ModelSpec, String)>,
    /// Start language servers for `expansion = "lsp"` requests.
    pub lsp: bool,
    /// The `ken` executable, for reindexing.
    pub exe: PathBuf,
}

pub struct Engine {
    index_dir: PathBuf,
    root: PathBuf,
    pub config: PipelineConfig,
    model: Option<(ModelSpec, String)>,
    shard: RwLock<ShardSlot>,
    embedder: Mutex<Option<Arc<dyn Embedder>>>,
    lsp: Option<LspBridge>,
    runtime: tokio::runtime::Handle,
    reindexing: Mutex<()>,
    exe: PathBuf,
}

enum ShardSlot {
    Closed,
    Open(Arc<VectorShard>),
    /// A reindex holds the shard: searches use BM25 and names meanwhile.
    Reindexing,
}

impl Engine {
    /// Opens the index (which must exist). Call inside a tokio runtime.
    pub fn open(options: EngineOptions) -> Result<Engine, ApiError> {
        let store = Store::open_read_only(&options.index_dir).map_err(ApiError::from_store)?;
        let root = store.meta("root").map_err(ApiError::from_store)?.map(PathBuf::from).unwrap_or_else(|| {
            options.index_dir.parent().map(Path::to_path_buf).unwrap_or_else(|| options.index_dir.clone())
        });
        let lsp = options.lsp.then(|| {
            let l = &options.config.lsp;
            // Configured servers first: per language, the first one installed wins.
            let mut servers: Vec<ServerSpec> = l
                .servers
                .iter()
                .map(|s| {
                    let languages: Vec<&str> = s.languages.iter().map(String::as_str).collect();
                    let args: Vec<&str> = s.args.iter().map(String::as_str).collect();
                    ServerSpec::new(&s.name, &languages, &s.command, &args)
                })
                .collect();
            servers.extend(ServerSpec::defaults());
            LspBridge::new(
                &root,
                LspConfig {
                    request_timeout: Duration::from_millis(l.request_timeout_ms),
                    max_in_flight: l.max_in_flight,
                    cache_ttl: Duration::from_secs(l.cache_ttl_secs),
                    servers,
                    ..LspConfig::default()
                },
            )
        });
        Ok(Engine {
            index_dir: options.index_dir,
            root,
            config: options.config,
            model: options.model,
            shard: RwLock::new(ShardSlot::Closed),
            embedder: Mutex::new(None),
            lsp,
            runtime: tokio::runtime::Handle::current(),
            reindexing: Mutex::new(()),
            exe: options.exe,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn lsp(&self) -> Option<&LspBridge> {
        self.lsp.as_ref()
    }

    fn store(&self) -> Result<Store, ApiError> {
        Store::open_read_only(&self.index_dir).map_err(ApiError::from_store)
    }

    /// The open shard, opening it on first use; `None` while a reindex runs.
    fn shard(&self, store: &Store, notes: &mut Vec<String>) -> Result<Option<Arc<VectorShard>>, ApiError> {
        if let Ok(slot) = self.shard.read() {
            match &*slot {
                ShardSlot::Open(s) => return Ok(Some(s.clone())),
                ShardSlot::Reindexing => {
                    notes.push("the index is being updated; semantic lane off, BM25 and names answer".into());
                    return Ok(None);
                }
                ShardSlot::Closed => {}
            }
        }
        // Nothing embedded yet: no shard to open (BM25 and names answer).
        if store.embed_progress().map_err(ApiError::from_store)?.embedded() == 0 {
            return Ok(None);
        }
        let mut slot = self.shard.write().map_err(|_| ApiError::internal("shard lock poisoned"))?;
        match &*slot {
            ShardSlot::Open(s) => Ok(Some(s.clone())),
            ShardSlot::Reindexing => Ok(None),
            ShardSlot::Closed => {
                let dim = ken_search::shard_dim(store).map_err(ApiError::from_store)?;
                let shard = Arc::new(VectorShard::open(&self.index_dir, dim, Duration::from_secs(10)).map_err(ApiError::from_shard)?);
                *slot = ShardSlot::Open(shard.clone());
                Ok(Some(shard))
            }
        }
    }

    /// The query embedder, loaded on first use; `None` (with a note) when
    /// the index has no vectors yet or the model cannot be loaded.
    fn embedder(&self, store: &Store, notes: &mut Vec<String>) -> Result<Option<Arc<dyn Embedder>>, ApiError> {
        let mut slot = self.embedder.lock().map_err(|_| ApiError::internal("model lock poisoned"))?;
        if let Some(e) = &*slot {
            return Ok(Some(e.clone()));
        }
        if store.embed_progress().map_err(ApiError::from_store)?.embedded() == 0 {
            return Ok(None);
        }
        let indexed = ken_search::indexed_model(store).map_err(ApiError::from_store)?;
        let (spec, spec_text) = match &self.model {
            Some(m) => m.clone(),
            None => {
                let text = ken_search::index_model_spec(store).map_err(ApiError::from_store)?;
                match ModelSpec::parse(&text) {
                    Ok(m) => (m, text),
                    Err(e) => {
                        notes.push(format!("semantic lane off: {e}"));
                        return Ok(None);
                    }
                }
            }
        };
        if let Some((id, indexed_spec)) = &indexed
            && ModelSpec::parse(indexed_spec).is_ok_and(|indexed_spec| spec.certainly_differs(&indexed_spec))
        {
            return Err(ApiError::conflict(format!(
                "this index was embedded with `{id}`, not `{spec_text}`; run `ken index --model {spec_text} --reembed`, or restart without --model"
            )));
        }
        let embedder: Arc<dyn Embedder> = match Resolver::default().load(&spec) {
            Ok(e) => Arc::from(e),
            Err(e) => {
                notes.push(format!("semantic lane off: {e}"));
                return Ok(None);
            }
        };
        if let Some((id, _)) = &indexed
            && id != embedder.model_id()
        {
            return Err(ApiError::conflict(format!(
                "this index was embedded with `{id}`, not `{}`; run `ken index --model {spec_text} --reembed`, or restart without --model",
                embedder.model_id()
            )));
        }
        *slot = Some(embedder.clone());
        Ok(Some(embedder))
    }

    /// Stage 1 only: the hybrid retrieval of `ken search`.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse, ApiError> {
        request.validate()?;
        let store = self.store()?;
        let mut notes = Vec::new();
        let mode = request.mode.unwrap_or(Mode::Hybrid);
        let shard = self.shard(&store, &mut notes)?;
        let embedder = if mode.uses_dense() { self.embedder(&store, &mut notes)? } else { None };
        let searcher = Searcher { store: &store, shard: shard.as_deref(), embedder: embedder.as_deref(), dense_off: None };
        let options = SearchOptions {
            k: request.k.unwrap_or(10),
            mode,
            languages: request.languages.clone(),
            kinds: request.kinds.clone(),
            path_glob: request.path.clone(),
            ..Default::default()
        };
        let mut response = searcher.search(&request.query, &options).map_err(ApiError::from_search)?;
        response.notes.extend(notes);
        Ok(response)
    }

    /// The five-stage pipeline (`POST /api/v1/hybrid-search`).
    pub fn hybrid_search(&self, request: &HybridSearchRequest) -> Result<PipelineResponse, ApiError> {
        let config = self.request_config(request.top_k, request.config_overrides.as_ref())?;
        request.validate()?;
        let store = self.store()?;
        let mut notes = Vec::new();
        let shard = self.shard(&store, &mut notes)?;
        let embedder = self.embedder(&store, &mut notes)?;
        let live = match (config.expansion, &self.lsp) {
            (Expansion::Lsp, Some(bridge)) => Some(Live { bridge, runtime: &self.runtime }),
            _ => None,
        };
        let pipeline = Pipeline {
            searcher: Searcher { store: &store, shard: shard.as_deref(), embedder: embedder.as_deref(), dense_off: None },
            root: self.root.clone(),
            live,
        };
        let filters = SearchOptions {
            languages: request.languages.clone(),
            kinds: request.kinds.clone(),
            path_glob: request.path.clone(),
            ..Default::default()
        };
        let mut response =
            pipeline.run(&request.query, &filters, &config, request.explain).map_err(ApiError::from_pipeline)?;
        response.notes.extend(notes);
        Ok(response)
    }

    /// The server's configuration with a request's `top_k` and overrides.
    pub fn request_config(&self, top_k: Option<usize>, overrides: Option<&Overrides>) -> Result<PipelineConfig, ApiError> {
        let mut config = match overrides {
            Some(o) => self.config.with_overrides(o, "config_overrides.", &Source::Request).map_err(ApiError::from_config)?,
            None => self.config.clone(),
        };
        if let Some(k) = top_k {
            config.top_k = k;
            config.validate(&Source::Request, "").map_err(ApiError::from_config)?;
        }
        Ok(config)
    }

    /// Symbols by name (`GET /api/v1/symbols`).
    pub fn symbols(&self, request: &SymbolsRequest) -> Result<Vec<ken_store::SymbolRow>, ApiError> {
        request.validate()?;
        let store = self.store()?;
        store
            .find_symbols(&SymbolQuery {
                text: request.name.clone(),
                kinds: request.kind.clone().into_iter().collect(),
                language: request.lang.clone(),
                limit: request.limit.unwrap_or(20),
            })
            .map_err(ApiError::from_store)
    }

    /// One symbol with its code and analytics (`GET /api/v1/symbol`).
    pub fn symbol(&self, request: &SymbolRequest) -> Result<SymbolDetail, ApiError> {
        request.validate()?;
        let store = self.store()?;
        let graph = ken_graph::Graph::new(&store);
        let symbol = graph.resolve(&ken_graph::SymbolRef::parse(&request.symbol)).map_err(ApiError::from_graph)?;
        let metrics = store.metrics(symbol.id).map_err(ApiError::from_store)?;
        let code = ken_pipeline::symbol_code(&self.root, &symbol, usize::MAX);
        Ok(SymbolDetail { id: ken_pipeline::symbol_id(&symbol), code, metrics, symbol })
    }

    /// A graph query (`GET /api/v1/graph/{relation}`).
    pub fn graph(&self, relation: GraphRelation, request: &GraphRequest) -> Result<ken_graph::Traversal, ApiError> {
        request.validate()?;
        let store = self.store()?;
        let graph = ken_graph::Graph::new(&store);
        let root = graph.resolve(&ken_graph::SymbolRef::parse(&request.symbol)).map_err(ApiError::from_graph)?;
        let depth = request.depth.unwrap_or(1);
        let result = match relation {
            GraphRelation::Callers => graph.callers(root, depth),
            GraphRelation::Callees => graph.callees(root, depth),
            GraphRelation::Subclasses => graph.subclasses(root),
            GraphRelation::Superclasses => graph.superclasses(root),
            GraphRelation::Refs => graph.refs(root),
            GraphRelation::Tests => graph.tests(root, depth),
        };
        result.map_err(ApiError::from_graph)
    }

    /// What the index holds, how far embedding got, and the language servers.
    pub fn status(&self) -> Result<StatusResponse, ApiError> {
        let store = self.store()?;
        let reindexing = self.reindexing.try_lock().is_err();
        Ok(StatusResponse {
            index_dir: self.index_dir.display().to_string(),
            root: self.root.display().to_string(),
            stats: store.stats().map_err(ApiError::from_store)?,
            embeddings: store.embed_progress().map_err(ApiError::from_store)?,
            model: ken_search::indexed_model(&store).map_err(ApiError::from_store)?.map(|(id, _)| id),
            reindexing,
            language_servers: self
                .lsp
                .as_ref()
                .map(|l| l.status().into_iter().filter_map(|s| serde_json::to_value(s).ok()).collect())
                .unwrap_or_default(),
        })
    }

    /// Brings the index up to date by running `ken index` on the repository.
    /// Qdrant Edge allows one process per shard, so the server lets go of
    /// its shard meanwhile (searches use BM25 and names until it is back).
    pub fn reindex(&self, request: &ReindexRequest) -> Result<serde_json::Value, ApiError> {
        let Ok(_guard) = self.reindexing.try_lock() else {
            return Err(ApiError::conflict("a reindex is already running; wait for it and retry".into()));
        };
        if let Ok(mut slot) = self.shard.write() {
            *slot = ShardSlot::Reindexing;
        }
        let mut command = std::process::Command::new(&self.exe);
        command.arg("--index-dir").arg(&self.index_dir).args(["index", "--json", "--quiet"]).arg(&self.root);
        if request.rebuild {
            command.arg("--rebuild");
        }
        if request.no_embed {
            command.arg("--no-embed");
        }
        if let Some((_, spec)) = &self.model {
            command.args(["--model", spec]);
        }
        let output = command.stdin(std::process::Stdio::null()).output();
        if let Ok(mut slot) = self.shard.write() {
            *slot = ShardSlot::Closed;
        }
        if let Ok(mut e) = self.embedder.lock() {
            *e = None; // `--rebuild` may have changed the model
        }
        let output = output.map_err(|e| ApiError::internal(format!("cannot run `{} index`: {e}", self.exe.display())))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(ApiError::internal(format!("`ken index` failed: {}", stderr.trim())));
        }
        serde_json::from_slice(&output.stdout).map_err(|e| ApiError::internal(format!("`ken index` printed no summary ({e})")))
    }

    /// Starts the language server of every indexed language that has one
    /// and waits until each has loaded the project, so the first live
    /// expansion is not spent on start-up. Returns what failed, per language.
    pub async fn warm_lsp(&self) -> Vec<String> {
        let Some(bridge) = &self.lsp else { return Vec::new() };
        let files = match self.store().and_then(|s| s.file_paths_by_language().map_err(ApiError::from_store)) {
            Ok(f) => f,
            Err(e) => return vec![e.to_string()],
        };
        let mut tasks = tokio::task::JoinSet::new();
        for (language, path) in files {
            if bridge.server_for(&language).is_some() {
                let bridge = bridge.clone();
                tasks.spawn(async move { bridge.warm(&language, &path).await.err().map(|e| format!("{language}: {e}")) });
            }
        }
        let mut problems = Vec::new();
        while let Some(done) = tasks.join_next().await {
            if let Ok(Some(problem)) = done {
                problems.push(problem);
            }
        }
        problems
    }

    /// Stops the language servers.
    pub async fn shutdown(&self) {
        if let Some(lsp) = &self.lsp {
            lsp.shutdown().await;
        }
    }
}

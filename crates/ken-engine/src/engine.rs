//! The engine: one index, owned end to end by one process. It indexes in
//! every phase (walk, mine, store, link, BM25 points, embeddings), answers
//! searches, the pipeline, symbol and graph questions, and reports status.
//! Methods block (SQLite, Qdrant Edge, ONNX); async callers run them on
//! `spawn_blocking`. Each request opens its own read-only SQLite connection
//! (cheap, and never blocked by the writer, which commits batch by batch);
//! the shard and the model are opened once, on first use, and shared by the
//! searches and the writer, so a reindex never takes a lane away.

use crate::api::*;
use crate::{Error, ErrorKind, IndexReport, IndexRequest};
use ken_core::{Language, SymbolKind};
use ken_embed::{Embedder, ModelSpec, Resolver};
use ken_lsp::{LspBridge, LspConfig, ServerSpec};
use ken_pipeline::{Expansion, Live, Overrides, Pipeline, PipelineConfig, PipelineResponse, Source};
use ken_search::{
    Evidence, EvidenceKind, FileHit, LocateOptions, LocateResponse, Mode, QdrantServer, SearchOptions, SearchResponse, Searcher,
    SharedShard, VectorLocation, VectorShard,
};
use ken_store::{Store, SymbolQuery};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct EngineOptions {
    pub index_dir: PathBuf,
    /// The repository; `None`: the one the index was built from (which must exist).
    pub root: Option<PathBuf>,
    pub config: PipelineConfig,
    /// The model to embed with; `None`: the one the index was embedded
    /// with, else the default (whose failure to load only warns).
    pub model: Option<(ModelSpec, String)>,
    /// Start language servers for `expansion = "lsp"` requests (needs a tokio runtime).
    pub lsp: bool,
    /// Keep the shard open between uses: for a process that serves many
    /// requests. A one-shot command lets go of it between batches instead,
    /// so other processes can search meanwhile.
    pub keep_shard: bool,
    /// How long a shard open waits for another process to let go of it
    /// (default: 10 s for a server, a minute for a one-shot command).
    pub shard_wait: Option<Duration>,
}

impl EngineOptions {
    pub fn new(index_dir: PathBuf) -> EngineOptions {
        EngineOptions {
            index_dir,
            root: None,
            config: PipelineConfig::default(),
            model: None,
            lsp: false,
            keep_shard: false,
            shard_wait: None,
        }
    }
}

pub struct Engine {
    pub(crate) index_dir: PathBuf,
    pub(crate) root: PathBuf,
    pub config: PipelineConfig,
    pub(crate) model: Option<(ModelSpec, String)>,
    /// The process's one shard handle, shared by searches and the writer.
    pub(crate) shards: SharedShard,
    pub(crate) embedder: Mutex<Option<Arc<dyn Embedder>>>,
    /// The static vectors' shard and embedder, likewise shared.
    pub(crate) statics: SharedShard,
    /// The intents' shard (`ken index --intents`), likewise shared.
    pub(crate) intent_shards: SharedShard,
    static_embedder: Mutex<Option<Arc<dyn Embedder>>>,
    pub(crate) lsp: Option<LspBridge>,
    pub(crate) runtime: Option<tokio::runtime::Handle>,
    /// Held by the index run (one at a time).
    pub(crate) indexing: Mutex<()>,
    /// The running (or last) index run's cancel flag.
    pub(crate) cancel: Mutex<ken_core::Cancel>,
    /// The language model, connected on first use, or why there is none.
    pub(crate) llm: std::sync::OnceLock<Result<Arc<dyn ken_llm::Llm>, String>>,
    /// A process that serves many requests (`keep_shard`): the embedder is
    /// readied for fast queries when it loads, which a one-shot search skips.
    serves_many: bool,
}

/// Validated language names as the domain type.
fn languages(names: &[String]) -> Vec<Language> {
    names.iter().filter_map(|n| Language::from_name(n)).collect()
}

/// Validated kind names as the domain type.
fn kinds(names: &[String]) -> Vec<SymbolKind> {
    names.iter().filter_map(|n| SymbolKind::parse(n)).collect()
}

/// The open halves of a dense lane (the model's, or the static one).
pub(crate) struct DenseLane {
    pub(crate) shard: Arc<VectorShard>,
    pub(crate) embedder: Arc<dyn Embedder>,
    /// The vector of the text the caller asked for ahead (`Prefetch`),
    /// embedded while the shard opened; `None` when the model was already
    /// loaded (it embeds as fast then) or embedding it failed (the search
    /// embeds it again and reports why).
    pub(crate) query_vector: Option<Vec<f32>>,
}

impl DenseLane {
    fn view(&self) -> ken_search::DenseView<'_> {
        ken_search::DenseView { shard: &self.shard, embedder: &*self.embedder }
    }
}

fn not_embedded() -> Error {
    Error::new(ErrorKind::NoIndex, "no embeddings for this index yet (run `ken index`)")
}

fn other_model(indexed: &str, wanted: &str, spec_text: &str) -> Error {
    Error::conflict(format!(
        "this index was embedded with `{indexed}`, not `{wanted}`; run `ken index --model {spec_text} --reembed` to embed it with the new model, or drop --model"
    ))
}

/// A query embedder shared by every engine of the process, loaded once per
/// model: a hub holds an engine per repository, and each would otherwise
/// keep its own copy of the model (about 100 MB for MiniLM).
fn shared_model(
    key: &str,
    load: impl FnOnce() -> Result<Box<dyn Embedder>, ken_embed::EmbedError>,
) -> Result<Arc<dyn Embedder>, ken_embed::EmbedError> {
    static MODELS: std::sync::OnceLock<Mutex<rustc_hash::FxHashMap<String, Arc<dyn Embedder>>>> = std::sync::OnceLock::new();
    let models = MODELS.get_or_init(Default::default);
    if let Some(model) = models.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
        return Ok(model.clone());
    }
    let model: Arc<dyn Embedder> = Arc::from(load()?);
    Ok(models.lock().unwrap_or_else(|e| e.into_inner()).entry(key.to_string()).or_insert(model).clone())
}

/// How long a search waits for another process to let go of the shard.
const READER_WAIT: Duration = Duration::from_secs(10);
/// Files the language model reranks for `locate` (Agentless shows its
/// model a handful; more would not fit a small model's attention).
const RERANK_FILES: usize = 10;

impl Engine {
    /// Opens the engine of an index. Without `options.root` the index must
    /// exist (the root is where it was built from).
    pub fn open(options: EngineOptions) -> Result<Engine, Error> {
        let root = match &options.root {
            Some(root) => root.clone(),
            None => {
                let store = Store::open_read_only(&options.index_dir)?;
                store
                    .meta("root")?
                    .map(PathBuf::from)
                    .unwrap_or_else(|| options.index_dir.parent().map(Path::to_path_buf).unwrap_or_else(|| options.index_dir.clone()))
            }
        };
        let runtime = tokio::runtime::Handle::try_current().ok();
        let lsp = (options.lsp && runtime.is_some()).then(|| {
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
        let wait = options.shard_wait.unwrap_or(if options.keep_shard { READER_WAIT } else { ken_search::WRITER_WAIT });
        let location = match options.config.vectors.url {
            None => VectorLocation::Edge,
            Some(_) => {
                let repo = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "repository".into());
                VectorLocation::Server(QdrantServer::connect(&options.config.vectors, &repo)?)
            }
        };
        let shard = |name| SharedShard::at(location.clone(), &options.index_dir, name, wait, options.keep_shard);
        Ok(Engine {
            serves_many: options.keep_shard,
            shards: shard(ken_search::SHARD_DIR),
            statics: shard(ken_search::STATIC_SHARD_DIR),
            intent_shards: shard(ken_search::INTENT_SHARD_DIR),
            static_embedder: Mutex::new(None),
            index_dir: options.index_dir,
            root,
            config: options.config,
            model: options.model,
            embedder: Mutex::new(None),
            lsp,
            runtime,
            indexing: Mutex::new(()),
            cancel: Mutex::default(),
            llm: std::sync::OnceLock::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The model the engine was told to embed queries with, as typed.
    pub fn model_text(&self) -> Option<&str> {
        self.model.as_ref().map(|(_, text)| text.as_str())
    }

    pub fn lsp(&self) -> Option<&LspBridge> {
        self.lsp.as_ref()
    }

    /// A read-only view of the last committed state, for questions the
    /// engine has no method for yet. Never blocked by a running index.
    pub fn store(&self) -> Result<Store, Error> {
        Ok(Store::open_read_only(&self.index_dir)?)
    }

    /// The static embedder, loaded once (distilled into the model cache on
    /// first use); `None` with a warning when it cannot be had.
    pub(crate) fn static_embedder(&self) -> (Option<Arc<dyn Embedder>>, Option<String>) {
        let mut slot = self.static_embedder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = &*slot {
            return (Some(e.clone()), None);
        }
        match shared_model("static", || Resolver::default().load(&ModelSpec::Static)) {
            Ok(e) => {
                *slot = Some(e.clone());
                (Some(e), None)
            }
            Err(e) => (None, Some(format!("static vectors skipped: {e}"))),
        }
    }

    /// The static lane, when the index has static vectors and their
    /// embedder loads; `None` otherwise (the other lanes answer).
    fn static_lane(&self, store: &Store) -> Result<Option<DenseLane>, Error> {
        let Some(indexed) = ken_search::static_model(store)? else { return Ok(None) };
        let (Some(embedder), _) = self.static_embedder() else { return Ok(None) };
        if embedder.model_id() != indexed {
            return Ok(None);
        }
        Ok(self.statics.existing(embedder.dim()).ok().flatten().map(|shard| DenseLane { shard, embedder, query_vector: None }))
    }

    /// The dense lane's two halves, the shard and the query embedder, each
    /// opened on first use (at once, on two threads: both take a while).
    /// The thread that loads the model then embeds `prefetch`, while the
    /// shard is still opening: a one-shot search's query costs it no time.
    /// `Ok(None)` with the reason when the lane is off: nothing embedded yet,
    /// the shard held or damaged, the model unavailable. A model other than
    /// the index's is an error: its vectors could never match.
    fn dense_lane(&self, store: &Store, prefetch: Option<&str>) -> Result<Result<DenseLane, Error>, Error> {
        if store.embed_totals()?.embedded == 0 {
            return Ok(Err(not_embedded()));
        }
        let dim = ken_search::shard_dim(store)?;
        let mut slot = self.embedder.lock().unwrap_or_else(|e| e.into_inner());
        let mut query_vector = None;
        let (shard, embedder) = match &*slot {
            Some(embedder) => (self.shards.existing(dim), Ok(embedder.clone())),
            None => {
                let indexed = ken_search::indexed_model(store)?;
                let (spec, spec_text) = match &self.model {
                    Some(m) => m.clone(),
                    None => {
                        let text = ken_search::index_model_spec(store)?;
                        match ModelSpec::parse(&text) {
                            Ok(m) => (m, text),
                            Err(e) => return Ok(Err(Error::new(ErrorKind::ModelUnavailable, e.to_string()))),
                        }
                    }
                };
                if let Some((id, indexed_spec)) = &indexed
                    && ModelSpec::parse(indexed_spec).is_ok_and(|indexed_spec| spec.certainly_differs(&indexed_spec))
                {
                    // Refused before the model is fetched: it could never be used here.
                    return Err(other_model(id, &spec_text, &spec_text));
                }
                let (shard, loaded) = std::thread::scope(|scope| {
                    let loaded = scope.spawn(|| {
                        let embedder = shared_model(&spec_text, || Resolver::default().load(&spec))?;
                        let vector = prefetch.and_then(|text| embedder.embed_query(text).ok());
                        Ok::<_, ken_embed::EmbedError>((embedder, vector))
                    });
                    let shard = self.shards.existing(dim);
                    (shard, loaded.join().unwrap_or_else(|_| Err(ken_embed::EmbedError::Inference("loading the model panicked".into()))))
                });
                let loaded = loaded.map(|(embedder, vector)| {
                    query_vector = vector;
                    embedder
                });
                let embedder = match loaded {
                    Ok(e) => {
                        if let Some((id, _)) = &indexed
                            && id != e.model_id()
                        {
                            return Err(other_model(id, e.model_id(), &spec_text));
                        }
                        if self.serves_many {
                            // Before the first query, as servers always did: no
                            // session is made meanwhile beside a reindex's.
                            if let Err(err) = e.ready_for_queries() {
                                tracing::warn!("readying the model for queries failed (they stay on the quick path): {err}");
                            }
                        }
                        *slot = Some(e.clone());
                        Ok(e)
                    }
                    Err(e) => Err(Error::new(ErrorKind::ModelUnavailable, e.to_string())),
                };
                (shard, embedder)
            }
        };
        let shard = match shard {
            Ok(Some(shard)) => shard,
            Ok(None) => return Ok(Err(not_embedded())),
            Err(e) => return Ok(Err(e.into())),
        };
        // A vector embedded by a model the checks above refused is dropped with it.
        Ok(embedder.map(|embedder| DenseLane { shard, embedder, query_vector }))
    }

    /// The query's vector from the model this index was embedded with
    /// (what the hub's first stage searches a shared collection with);
    /// None before any point is embedded.
    pub fn query_vector(&self, query: &str) -> Result<Option<Vec<f32>>, Error> {
        let store = self.store()?;
        match self.dense_lane(&store, Some(query))? {
            Ok(DenseLane { query_vector: Some(vector), .. }) => Ok(Some(vector)),
            Ok(lane) => {
                let vector = lane.embedder.embed_query(query).map_err(|e| Error::new(ErrorKind::ModelUnavailable, e.to_string()))?;
                Ok(Some(vector))
            }
            Err(_) => Ok(None),
        }
    }

    /// Stage 1 only: the hybrid retrieval of `ken search`. A dense lane that
    /// is off fails `semantic` mode and leaves a note in the others.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse, Error> {
        request.validate()?;
        if let Some(expansion @ (QueryExpansion::Dsl | QueryExpansion::Keywords)) = request.query_expansion {
            return self.search_expanded(request, expansion);
        }
        let store = self.store()?;
        let mode = request.mode.unwrap_or(Mode::Hybrid);
        let ranking = self.ranking(request);
        // The text the dense lane embeds (the query as the search reads it).
        let text = ken_search::plan_query(&request.query).ok().map(|plan| plan.text);
        let (dense, statics, dense_off) = self.dense_lanes(
            &store,
            mode == Mode::Semantic,
            mode.uses_dense() || mode == Mode::Intents,
            ranking.static_weight,
            text.as_deref(),
        )?;
        let intents = self.intent_shard(&store, dense.as_ref())?;
        let searcher = Searcher {
            store: &store,
            shard: dense.as_ref().map(|d| &*d.shard),
            embedder: dense.as_ref().map(|d| &*d.embedder),
            dense_off,
            statics: statics.as_ref().map(DenseLane::view),
            intents: intents.as_deref(),
        };
        let options = SearchOptions {
            k: request.k.unwrap_or(10),
            mode,
            languages: languages(&request.languages),
            kinds: kinds(&request.kinds),
            path_glob: request.path.clone(),
            ranking,
            query_vector: dense.as_ref().and_then(|d| d.query_vector.clone()),
            ..Default::default()
        };
        Ok(searcher.search(&request.query, &options)?)
    }

    /// Bug localization: the files (and in each, the functions) a report is
    /// about, each with its evidence. Every lane the index has answers;
    /// one that is off says so in `notes`.
    pub fn locate(&self, request: &LocateRequest) -> Result<LocateResponse, Error> {
        request.validate()?;
        let store = self.store()?;
        // The static vectors only stand in for the model's here.
        let (dense, statics, dense_off) = self.dense_lanes(&store, false, true, 0.0, None)?;
        let intents = self.intent_shard(&store, dense.as_ref())?;
        let searcher = Searcher {
            store: &store,
            shard: dense.as_ref().map(|d| &*d.shard),
            embedder: dense.as_ref().map(|d| &*d.embedder),
            dense_off,
            statics: statics.as_ref().map(DenseLane::view),
            intents: intents.as_deref(),
        };
        let defaults = LocateOptions::default();
        let k = request.k.unwrap_or(defaults.k);
        let rerank = request.rerank.unwrap_or_default() == LocateRerank::Llm;
        let options = LocateOptions {
            k: if rerank { k.max(RERANK_FILES) } else { k },
            symbols: request.symbols.unwrap_or(defaults.symbols),
            weights: request.weights.clone().unwrap_or(defaults.weights),
            explain: request.explain,
        };
        let mut response = searcher.locate(&request.report, &options)?;
        if rerank {
            self.rerank_located(&request.report, &mut response);
        }
        // The list across files follows what the rerank and the cut left.
        response.files.truncate(k);
        response.functions = ken_search::functions_across(&response.files);
        Ok(response)
    }

    /// The model reorders the top files: those it names go first, in its
    /// order; the rest keep theirs. A missing model or a failed call leaves
    /// the order alone, with a note.
    fn rerank_located(&self, report: &str, response: &mut LocateResponse) {
        let llm = match self.llm() {
            Ok(llm) => llm,
            Err(why) => {
                response.notes.push(format!("rerank by the language model skipped: {why}"));
                return;
            }
        };
        let pool = response.files.len().min(RERANK_FILES);
        let candidates: Vec<ken_llm::locate::Candidate<'_>> = response.files[..pool]
            .iter()
            .map(|f| ken_llm::locate::Candidate { path: &f.path, symbols: f.symbols.iter().map(|s| s.qualified_name.as_str()).collect() })
            .collect();
        let picks =
            match llm.chat(&ken_llm::locate::request(report, &candidates), &mut |_| {}).and_then(|c| ken_llm::locate::parse(&c, pool)) {
                Ok(picks) => picks,
                Err(e) => {
                    response.notes.push(format!("rerank by the language model failed, order kept: {e}"));
                    return;
                }
            };
        let mut order: Vec<usize> = picks.clone();
        order.extend((0..response.files.len()).filter(|i| !picks.contains(i)));
        let mut files: Vec<Option<FileHit>> = std::mem::take(&mut response.files).into_iter().map(Some).collect();
        for (rank, &i) in picks.iter().enumerate() {
            if let Some(file) = files[i].as_mut() {
                file.evidence
                    .insert(0, Evidence { kind: EvidenceKind::Model, detail: format!("the model's pick {} of {}", rank + 1, picks.len()) });
            }
        }
        response.files = order.into_iter().filter_map(|i| files[i].take()).collect();
    }

    /// The model's lane and the static one, with why the model's is off.
    /// `required`: a lane that is off is an error when no static lane stands in.
    /// A one-shot search opens the static lane only where it counts: instead
    /// of the model's, for what the model has not embedded yet, or beside it
    /// at `static_weight` (opening its shard and table costs a CLI search
    /// about 0.2 s on Django). A server keeps it open: its own reindexes
    /// take the model's vectors of changed files away until they are
    /// embedded again, and the static ones stand in meanwhile.
    #[allow(clippy::type_complexity)]
    pub(crate) fn dense_lanes(
        &self,
        store: &Store,
        required: bool,
        wanted: bool,
        static_weight: f32,
        prefetch: Option<&str>,
    ) -> Result<(Option<DenseLane>, Option<DenseLane>, Option<String>), Error> {
        if !wanted {
            return Ok((None, None, None));
        }
        let dense = self.dense_lane(store, prefetch)?;
        let statics_count = match &dense {
            Ok(_) => self.serves_many || static_weight > 0.0 || !store.embed_totals()?.complete(),
            Err(_) => true,
        };
        let statics = if statics_count { self.static_lane(store)? } else { None };
        let (dense, off) = match dense {
            Ok(lane) => (Some(lane), None),
            Err(off) if required && statics.is_none() => return Err(off),
            Err(off) => (None, Some(off.message)),
        };
        // An index embedded with the static model has one lane, not two.
        let statics = statics.filter(|s| dense.as_ref().is_none_or(|d| d.embedder.model_id() != s.embedder.model_id()));
        Ok((dense, statics, off))
    }

    /// The intent shard, when the index has intents embedded with the
    /// dense lane's model (else their vectors could never match its queries).
    fn intent_shard(&self, store: &Store, dense: Option<&DenseLane>) -> Result<Option<Arc<VectorShard>>, Error> {
        let Some(dense) = dense else { return Ok(None) };
        if ken_search::intent_vectors_model(store)?.as_deref() != Some(dense.embedder.model_id()) {
            return Ok(None);
        }
        Ok(self.intent_shards.existing(dense.embedder.dim()).ok().flatten())
    }

    /// The configured ranking with a request's `ranking` and `rrf_k` on top.
    fn ranking(&self, request: &SearchRequest) -> ken_search::Ranking {
        let mut ranking = request.ranking.as_ref().map_or_else(|| self.config.ranking.clone(), |o| o.apply(&self.config.ranking));
        if let Some(k) = request.rrf_k {
            ranking.rrf_k = k;
        }
        ranking
    }

    /// The five-stage pipeline (`POST /api/v1/hybrid-search`).
    pub fn hybrid_search(&self, request: &HybridSearchRequest) -> Result<PipelineResponse, Error> {
        let config = self.request_config(request.top_k, request.config_overrides.as_ref())?;
        self.pipeline_search(request, &config)
    }

    /// The pipeline with a configuration of the caller's (the engine's with
    /// command-line flags on top); `request.config_overrides` is not read.
    pub fn pipeline_search(&self, request: &HybridSearchRequest, config: &PipelineConfig) -> Result<PipelineResponse, Error> {
        request.validate()?;
        // An expanded query is retrieved (and fused) first; its hits seed the pipeline.
        let retrieved = match request.query_expansion {
            Some(expansion @ (QueryExpansion::Dsl | QueryExpansion::Keywords)) => Some(self.search_expanded(
                &SearchRequest {
                    query: request.query.clone(),
                    k: Some(config.top_k * 2),
                    languages: request.languages.clone(),
                    kinds: request.kinds.clone(),
                    path: request.path.clone(),
                    ..SearchRequest::default()
                },
                expansion,
            )?),
            _ => None,
        };
        let store = self.store()?;
        let (dense, statics, dense_off) = self.dense_lanes(&store, false, true, config.ranking.static_weight, Some(&request.query))?;
        let intents = self.intent_shard(&store, dense.as_ref())?;
        let live = match (config.expansion, &self.lsp, &self.runtime) {
            (Expansion::Lsp, Some(bridge), Some(runtime)) => Some(Live { bridge, runtime }),
            _ => None,
        };
        let pipeline = Pipeline {
            searcher: Searcher {
                store: &store,
                shard: dense.as_ref().map(|d| &*d.shard),
                embedder: dense.as_ref().map(|d| &*d.embedder),
                dense_off,
                statics: statics.as_ref().map(DenseLane::view),
                intents: intents.as_deref(),
            },
            root: self.root.clone(),
            live,
            retrieved,
        };
        let filters = SearchOptions {
            ranking: config.ranking.clone(),
            languages: languages(&request.languages),
            kinds: kinds(&request.kinds),
            path_glob: request.path.clone(),
            query_vector: dense.as_ref().and_then(|d| d.query_vector.clone()),
            ..Default::default()
        };
        let mut response = pipeline.run(&request.query, &filters, config, request.explain)?;
        let titles = request.titles.unwrap_or(if config.llm.names_a_model() { ClusterTitles::Llm } else { ClusterTitles::Structural });
        if titles == ClusterTitles::Llm {
            self.title_clusters(&mut response);
        }
        Ok(response)
    }

    /// Gives each cluster a title by the language model (CodexLens); a
    /// missing model or a failed call leaves the structural title alone, with a note.
    fn title_clusters(&self, response: &mut PipelineResponse) {
        let llm = match self.llm() {
            Ok(llm) => llm,
            Err(why) => {
                response.notes.push(format!("cluster titles by the language model skipped: {why}"));
                return;
            }
        };
        let mut failed = Vec::new();
        for cluster in &mut response.results {
            let members: Vec<ken_llm::title::Member<'_>> = cluster
                .symbols
                .iter()
                .map(|s| ken_llm::title::Member {
                    kind: s.kind.as_str(),
                    qualified_name: &s.qualified_name,
                    path: &s.file_path,
                    summary: s.raw_code.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(""),
                })
                .collect();
            match llm.chat(&ken_llm::title::request(&members), &mut |_| {}).and_then(|c| ken_llm::title::parse(&c)) {
                Ok(title) => cluster.llm_title = Some(title),
                Err(e) => failed.push(format!("{}: {e}", cluster.cluster_id)),
            }
        }
        if !failed.is_empty() {
            response.notes.push(format!("{} clusters kept only their structural title ({})", failed.len(), failed.join("; ")));
        }
    }

    /// The server's configuration with a request's `top_k` and overrides.
    pub fn request_config(&self, top_k: Option<usize>, overrides: Option<&Overrides>) -> Result<PipelineConfig, Error> {
        let mut config = match overrides {
            Some(o) => self.config.with_overrides(o, "config_overrides.", &Source::Request)?,
            None => self.config.clone(),
        };
        if let Some(k) = top_k {
            config.top_k = k;
            config.validate(&Source::Request, "")?;
        }
        Ok(config)
    }

    /// Symbols by name (`GET /api/v1/symbols`).
    pub fn symbols(&self, request: &SymbolsRequest) -> Result<Vec<ken_store::SymbolRow>, Error> {
        request.validate()?;
        let store = self.store()?;
        Ok(store.find_symbols(&SymbolQuery {
            text: request.name.clone(),
            kinds: kinds(request.kind.as_slice()),
            language: request.lang.as_deref().and_then(Language::from_name),
            limit: request.limit.unwrap_or(20),
        })?)
    }

    /// One symbol with its code and analytics (`GET /api/v1/symbol`).
    pub fn symbol(&self, request: &SymbolRequest) -> Result<SymbolDetail, Error> {
        request.validate()?;
        let store = self.store()?;
        let graph = ken_graph::Graph::new(&store);
        let symbol = graph.resolve(&ken_graph::SymbolRef::parse(&request.symbol))?;
        let metrics = store.metrics(symbol.id)?;
        let code = ken_pipeline::symbol_code(&self.root, &symbol, usize::MAX);
        Ok(SymbolDetail { id: ken_pipeline::symbol_id(&symbol), code, metrics, symbol })
    }

    /// A graph query (`GET /api/v1/graph/{relation}`).
    pub fn graph(&self, relation: GraphRelation, request: &GraphRequest) -> Result<ken_graph::Traversal, Error> {
        request.validate()?;
        let store = self.store()?;
        let graph = ken_graph::Graph::new(&store);
        let root = graph.resolve(&ken_graph::SymbolRef::parse(&request.symbol))?;
        let depth = request.depth.unwrap_or(1);
        let result = match relation {
            GraphRelation::Callers => graph.callers(root, depth),
            GraphRelation::Callees => graph.callees(root, depth),
            GraphRelation::Subclasses => graph.subclasses(root),
            GraphRelation::Superclasses => graph.superclasses(root),
            GraphRelation::Refs => graph.refs(root),
            GraphRelation::Tests => graph.tests(root, depth),
            GraphRelation::Overrides => {
                if !root.kind.is_callable() {
                    return Err(Error::invalid("symbol", format!("{} is a {}; overrides are a method's", root.qualified_name, root.kind)));
                }
                graph.overrides(root).map(|(mut up, down)| {
                    up.hits.extend(down.hits);
                    up.truncated |= down.truncated;
                    up
                })
            }
        };
        Ok(result?)
    }

    /// How `from` reaches `to` in the graph, if it does within `max_depth`.
    pub fn path(&self, request: &PathRequest) -> Result<PathResponse, Error> {
        request.validate()?;
        let store = self.store()?;
        let graph = ken_graph::Graph::new(&store);
        // A name that resolves to nothing, or to several, is that field's fault.
        let resolve = |text: &str, field: &str| {
            graph.resolve(&ken_graph::SymbolRef::parse(text)).map_err(|e| Error { field: Some(field.into()), ..Error::from(e) })
        };
        let (from, to) = (resolve(&request.from, "from")?, resolve(&request.to, "to")?);
        let path = graph.path(from.clone(), to.clone(), request.max_depth.unwrap_or(12))?;
        Ok(PathResponse { from, to, path })
    }

    /// Public functions and methods no test reaches, most important first.
    pub fn untested(&self, request: &UntestedRequest) -> Result<UntestedResponse, Error> {
        request.validate()?;
        let store = self.store()?;
        let mut symbols = ken_graph::Graph::new(&store).untested()?;
        let total = symbols.len();
        symbols.truncate(request.limit.unwrap_or(50));
        Ok(UntestedResponse { total, symbols })
    }

    /// What the index holds, how far embedding got, and the language servers.
    pub fn status(&self) -> Result<StatusResponse, Error> {
        let store = self.store()?;
        let reindexing = self.indexing.try_lock().is_err();
        Ok(StatusResponse {
            index_dir: self.index_dir.display().to_string(),
            root: self.root.display().to_string(),
            stats: store.stats()?,
            embeddings: store.embed_progress()?,
            model: ken_search::indexed_model(&store)?.map(|(id, _)| id),
            intents: {
                let (intents, symbols) = store.intent_counts()?;
                IntentCounts { intents, symbols }
            },
            reindexing,
            language_servers: self
                .lsp
                .as_ref()
                .map(|l| l.status().into_iter().filter_map(|s| serde_json::to_value(s).ok()).collect())
                .unwrap_or_default(),
        })
    }

    /// Brings the index up to date (`POST /api/v1/reindex`, the MCP tool),
    /// in this process: searches meanwhile keep every lane and read the
    /// last committed batch.
    pub fn reindex(&self, request: &ReindexRequest) -> Result<IndexReport, Error> {
        let mut options = ken_index::IndexOptions::new(self.root.clone(), self.index_dir.clone());
        options.rebuild = request.rebuild;
        let request = IndexRequest { options, embed: !request.no_embed, intents: request.intents, ..IndexRequest::default() };
        self.index(&request, &|_| {})
    }

    /// Starts the language server of every indexed language that has one
    /// and waits until each has loaded the project, so the first live
    /// expansion is not spent on start-up. Returns what failed, per language.
    pub async fn warm_lsp(&self) -> Vec<String> {
        let Some(bridge) = &self.lsp else { return Vec::new() };
        let files = match self.store().and_then(|s| Ok(s.file_paths_by_language()?)) {
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

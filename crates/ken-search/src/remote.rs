//! A Qdrant server or cluster as the vector store (`[vectors] url`,
//! `KEN_QDRANT_URL`, `--qdrant-url`), in place of the embedded Edge shards.
//!
//! One collection per shard role and dense size (`ken_vectors_d384`,
//! `ken_static_d256`, …) holds every repository that writes to the server;
//! each point carries its repository (an indexed tenant field) and every
//! read and write is scoped by it. A point's id is a UUID made of the
//! repository's hash and the index's point id, so repositories never
//! collide and a search maps hits back to points without reading payload.
//!
//! Every point also carries a sparse BM25 vector of its names and code
//! (the server weighs terms by IDF). A repository's own searches keep
//! SQLite's BM25 and ken's fusion, the same as on Edge; the sparse lane
//! serves [`QdrantServer::route`], the first stage of a search over many
//! repositories: one Query API call, dense and BM25 fused by rank.
//!
//! The client is gRPC (`qdrant-client`) on a runtime of its own, so the
//! engine's blocking callers need not be async. Calls that fail in transit
//! are retried (writes are idempotent upserts and deletes by filter) and
//! then tried on the next URL of the list; when none answers the error
//! names them all.

use crate::points::{DENSE, PointFilter, PointPayload, ShardError};
use qdrant_client::qdrant::{
    Condition, CountPointsBuilder, CreateCollectionBuilder, CreateFieldIndexCollectionBuilder, DeletePointsBuilder, Distance, FieldType,
    Filter, Fusion, KeywordIndexParamsBuilder, Modifier, NamedVectors, PointId, PointStruct, PrefetchQueryBuilder, Query,
    QueryPointGroupsBuilder, QueryPointsBuilder, SparseVectorParamsBuilder, SparseVectorsConfigBuilder, UpsertPointsBuilder, Vector,
    VectorInput, VectorParamsBuilder, VectorsConfigBuilder, group_id, point_id::PointIdOptions,
};
use qdrant_client::{Qdrant, QdrantError};
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// `[vectors]` in ken.toml; `KEN_QDRANT_URL` and `KEN_QDRANT_API_KEY` win.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct VectorsConfig {
    /// The Qdrant server's gRPC address (port 6334 by default), or several
    /// nodes of one cluster separated by commas, tried in turn. None: the
    /// embedded Edge shard in the index directory.
    pub url: Option<String>,
    #[serde(skip_serializing)]
    pub api_key: Option<String>,
    /// Collections are named `<prefix>_<role>_d<size>` (default `ken`).
    pub collection_prefix: Option<String>,
    /// This repository's name on the server (default: its directory's name).
    pub repo: Option<String>,
    /// Shards and replicas of a collection this index creates (default 1 and
    /// 1; a cluster wants shards ≥ nodes and 2 replicas).
    pub shards: Option<u32>,
    pub replicas: Option<u32>,
    /// One collection per repository instead of one per model shared by
    /// all (default false: `docs/scale.md` measures both).
    pub collection_per_repo: Option<bool>,
}

impl VectorsConfig {
    /// Later settings win, field by field.
    pub fn merge(&mut self, other: &VectorsConfig) {
        fn set<T: Clone>(slot: &mut Option<T>, value: &Option<T>) {
            if value.is_some() {
                slot.clone_from(value);
            }
        }
        set(&mut self.url, &other.url);
        set(&mut self.api_key, &other.api_key);
        set(&mut self.collection_prefix, &other.collection_prefix);
        set(&mut self.repo, &other.repo);
        set(&mut self.shards, &other.shards);
        set(&mut self.replicas, &other.replicas);
        set(&mut self.collection_per_repo, &other.collection_per_repo);
    }

    pub fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) {
        if let Some(url) = var("KEN_QDRANT_URL").filter(|u| !u.trim().is_empty()) {
            self.url = Some(url);
        }
        if let Some(key) = var("KEN_QDRANT_API_KEY").filter(|k| !k.is_empty()) {
            self.api_key = Some(key);
        }
    }

    /// Why the settings cannot be used, naming the field.
    pub fn problem(&self) -> Option<String> {
        if let Some(url) = &self.url {
            for one in url.split(',').map(str::trim) {
                if !(one.starts_with("http://") || one.starts_with("https://")) || one.len() <= "http://".len() {
                    return Some(format!("vectors.url: `{one}` is not an http:// or https:// address of a Qdrant server's gRPC port"));
                }
            }
        }
        if let Some(prefix) = &self.collection_prefix
            && !valid_name(prefix)
        {
            return Some(format!("vectors.collection_prefix: `{prefix}` must be 1 to 64 letters, digits, `-` or `_`"));
        }
        if let Some(repo) = &self.repo
            && (repo.trim().is_empty() || repo.len() > 200)
        {
            return Some("vectors.repo: give 1 to 200 characters".into());
        }
        for (field, value) in [("shards", self.shards), ("replicas", self.replicas)] {
            if value.is_some_and(|n| !(1..=64).contains(&n)) {
                return Some(format!("vectors.{field}: give 1 to 64"));
            }
        }
        None
    }
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The name of every server point's sparse BM25 vector. The server weighs
/// each term by its inverse document frequency over the collection (the
/// `Idf` modifier); the point carries BM25's term-frequency part.
pub const BM25: &str = "bm25";

/// BM25's constants; the average length (in terms) is fixed, as the
/// collection's grows with every push and a point's weights must not
/// depend on when it was written.
const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;
const BM25_AVERAGE_TERMS: f32 = 150.0;

/// A term's dimension in the sparse vector.
fn term_dimension(term: &str) -> u32 {
    xxhash_rust::xxh3::xxh3_64(term.as_bytes()) as u32
}

/// A point's sparse BM25 vector over the code-aware terms of its names
/// (counted twice, as SQLite's lane boosts them) and its text.
pub fn bm25_document(point: &PointPayload<'_>) -> (Vec<u32>, Vec<f32>) {
    let mut counts: rustc_hash::FxHashMap<u32, f32> = Default::default();
    for term in crate::lexical::terms(&format!("{} {}", point.name, point.qualified_name), false) {
        *counts.entry(term_dimension(&term)).or_default() += 2.0;
    }
    for term in crate::lexical::terms(point.text, false) {
        *counts.entry(term_dimension(&term)).or_default() += 1.0;
    }
    let length: f32 = counts.values().sum();
    let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * length / BM25_AVERAGE_TERMS);
    let mut weights: Vec<(u32, f32)> = counts.into_iter().map(|(d, tf)| (d, tf * (BM25_K1 + 1.0) / (tf + norm))).collect();
    weights.sort_unstable_by_key(|w| w.0);
    weights.into_iter().unzip()
}

/// A query's sparse vector: each distinct term once (stopwords dropped).
pub fn bm25_query(query: &str) -> (Vec<u32>, Vec<f32>) {
    let mut dims: Vec<u32> = crate::lexical::terms(query, true).iter().map(|t| term_dimension(t)).collect();
    dims.sort_unstable();
    dims.dedup();
    let ones = vec![1.0; dims.len()];
    (dims, ones)
}

/// Retries of [`QdrantServer::call`]: rounds in which no node could be
/// connected to, and the time allowed for transient errors.
const UNREACHED_ROUNDS: usize = 3;
const TRANSIENT_BUDGET: Duration = Duration::from_secs(60);
const FIRST_PAUSE: Duration = Duration::from_millis(250);
const MAX_PAUSE: Duration = Duration::from_secs(2);

/// A connection to a Qdrant server (or a cluster's nodes) for one repository.
pub struct QdrantServer {
    nodes: Vec<(String, Qdrant)>,
    /// The node that answered last: tried first.
    current: AtomicUsize,
    prefix: String,
    repo: String,
    repo_hash: u64,
    shards: u32,
    replicas: u32,
    per_repo: bool,
}

/// The client's runtime: one per process, never dropped (a runtime cannot
/// be dropped inside another's context, where servers call the engine).
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("ken-qdrant")
            .enable_all()
            .build()
            .expect("a tokio runtime for the Qdrant client")
    })
}

/// Runs `future` on the client's runtime and waits for it, from any thread
/// (async or not).
fn block<T: Send + 'static>(future: impl Future<Output = T> + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime().spawn(async move {
        let _ = tx.send(future.await);
    });
    rx.recv().expect("the Qdrant runtime outlives its calls")
}

fn transient(e: &QdrantError) -> bool {
    use tonic::Code;
    match e {
        QdrantError::ResponseError { status } => matches!(
            status.code(),
            Code::Unavailable | Code::DeadlineExceeded | Code::Unknown | Code::Internal | Code::Aborted | Code::Cancelled
        ),
        QdrantError::ResourceExhaustedError { .. } | QdrantError::Io(_) => true,
        _ => false,
    }
}

/// No connection could be made (nothing listens, or the host is gone), as
/// opposed to a node that answered with an error.
fn unreached(e: &QdrantError) -> bool {
    match e {
        QdrantError::ResponseError { status } => {
            let message = status.message().to_ascii_lowercase();
            message.contains("failed to connect") || message.contains("connect error") || message.contains("connection refused")
        }
        QdrantError::Io(_) => true,
        _ => false,
    }
}

/// A shorter account of a client error than its Display (which dumps gRPC
/// metadata and transport internals): the status and its message, or the
/// operating system's word for a failed connection.
fn describe(e: &QdrantError) -> String {
    match e {
        QdrantError::ResponseError { status } => {
            let message = status.message();
            if let Some(os) = message.split("message: \"").nth(1).and_then(|m| m.split('"').next()) {
                return os.to_lowercase();
            }
            let message = message.split(": tonic::").next().unwrap_or(message);
            format!("{:?}: {message}", status.code())
        }
        other => other.to_string(),
    }
}

impl QdrantServer {
    /// A client for `config.url` (which must be set); `default_repo` names
    /// the repository when the config does not. Connects lazily: the first
    /// call that fails to reach any node is the error.
    pub fn connect(config: &VectorsConfig, default_repo: &str) -> Result<Arc<QdrantServer>, ShardError> {
        if let Some(problem) = config.problem() {
            return Err(ShardError::Config(problem));
        }
        let url = config.url.as_deref().ok_or_else(|| ShardError::Config("vectors.url is not set".into()))?;
        let nodes = url
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(|u| {
                let client = Qdrant::from_url(u)
                    .api_key(config.api_key.clone())
                    .connect_timeout(Duration::from_secs(5))
                    .timeout(Duration::from_secs(60))
                    .skip_compatibility_check()
                    .build()
                    .map_err(|e| ShardError::Config(format!("vectors.url: `{u}`: {}", describe(&e))))?;
                Ok((u.to_string(), client))
            })
            .collect::<Result<Vec<_>, ShardError>>()?;
        let repo = config.repo.clone().unwrap_or_else(|| default_repo.to_string());
        Ok(Arc::new(QdrantServer {
            nodes,
            current: AtomicUsize::new(0),
            prefix: config.collection_prefix.clone().unwrap_or_else(|| "ken".into()),
            repo_hash: xxhash_rust::xxh3::xxh3_64(repo.as_bytes()),
            repo,
            shards: config.shards.unwrap_or(1),
            replicas: config.replicas.unwrap_or(1),
            per_repo: config.collection_per_repo.unwrap_or(false),
        }))
    }

    pub fn repo(&self) -> &str {
        &self.repo
    }

    /// What SQLite records as the place its vectors are: a change (another
    /// server, prefix or repository name) writes every point again.
    pub fn location(&self) -> String {
        let urls: Vec<&str> = self.nodes.iter().map(|(u, _)| u.as_str()).collect();
        let layout = if self.per_repo { " per-repo" } else { "" };
        format!("qdrant {} {} {}{layout}", urls.join(","), self.prefix, self.repo)
    }

    fn urls(&self) -> String {
        self.nodes.iter().map(|(u, _)| u.as_str()).collect::<Vec<_>>().join(", ")
    }

    /// Calls `op` on the node that answered last, then on the others in
    /// turn, round after round with a pause that doubles (to 2 s). A round
    /// where no node could even be connected to counts against a short
    /// budget (a server that is down is said so in about two seconds); one
    /// where a node answered with a transient error (a replica being
    /// marked dead after a node's loss) is retried for up to a minute.
    fn call<T, F, Fut>(&self, what: &str, op: F) -> Result<T, ShardError>
    where
        T: Send + 'static,
        F: Fn(Qdrant) -> Fut,
        Fut: Future<Output = Result<T, QdrantError>> + Send + 'static,
    {
        let first = self.current.load(Ordering::Relaxed);
        let start = std::time::Instant::now();
        let mut last = String::new();
        let mut pause = FIRST_PAUSE;
        let mut unreached_rounds = 0;
        loop {
            let mut all_unreached = true;
            for step in 0..self.nodes.len() {
                let at = (first + step) % self.nodes.len();
                let (url, client) = &self.nodes[at];
                match block(op(client.clone())) {
                    Ok(value) => {
                        self.current.store(at, Ordering::Relaxed);
                        return Ok(value);
                    }
                    Err(e) if transient(&e) => {
                        last = describe(&e);
                        all_unreached &= unreached(&e);
                        tracing::debug!(%url, "Qdrant {what} failed in transit ({last})");
                    }
                    Err(e) => return Err(ShardError::Qdrant(format!("Qdrant at {url}: {what}: {}", describe(&e)))),
                }
            }
            unreached_rounds += usize::from(all_unreached);
            if unreached_rounds > UNREACHED_ROUNDS || start.elapsed() > TRANSIENT_BUDGET {
                return Err(ShardError::Unreachable { urls: self.urls(), detail: last });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(MAX_PAUSE);
        }
    }

    /// `<prefix>_<role>_d<dim>`, or with `collection_per_repo`
    /// `<prefix>_<repo>_<role>_d<dim>` (the repository's name made safe, and
    /// its hash, so two names never share one).
    pub fn collection_name(&self, role: &str, dim: usize) -> String {
        format!("{}{dim}", self.collection_head(role))
    }

    fn collection_head(&self, role: &str) -> String {
        if self.per_repo {
            let safe: String = self.repo.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).take(48).collect();
            format!("{}_{safe}{:08x}_{role}_d", self.prefix, self.repo_hash as u32)
        } else {
            format!("{}_{role}_d", self.prefix)
        }
    }

    pub fn collection_exists(&self, name: &str) -> Result<bool, ShardError> {
        let name = name.to_string();
        self.call("collection check", move |c| {
            let name = name.clone();
            async move { c.collection_exists(name).await }
        })
    }

    /// An error naming the nodes when none answers.
    pub fn check_reachable(&self) -> Result<(), ShardError> {
        self.call("health check", |c| async move { c.health_check().await }).map(|_| ())
    }

    /// Deletes this repository's points from every collection of `role`
    /// (of any dense size); other repositories' stay.
    pub fn delete_repo_everywhere(self: &Arc<Self>, role: &str) -> Result<(), ShardError> {
        let listed = self.call("collection list", |c| async move { c.list_collections().await })?;
        let head = self.collection_head(role);
        for collection in listed.collections {
            if collection.name.strip_prefix(&head).is_some_and(|dim| dim.parse::<usize>().is_ok()) {
                RemoteCollection { server: self.clone(), name: collection.name }.delete_repo()?;
            }
        }
        Ok(())
    }

    /// The repositories whose code best matches a query, best first, with
    /// their best hit's fused score: one Query API call over the shared
    /// collection of `role` and the vector's size, the dense and BM25
    /// prefetches fused by reciprocal rank and grouped by repository.
    /// `repos` narrows the scope (empty: every repository). None where each
    /// repository has its own collection (nothing to search across).
    pub fn route(
        &self,
        role: &str,
        vector: Vec<f32>,
        query: &str,
        repos: &[String],
        limit: usize,
    ) -> Result<Option<Vec<(String, f32)>>, ShardError> {
        if self.per_repo {
            return Ok(None);
        }
        let name = self.collection_name(role, vector.len());
        if !self.collection_exists(&name)? {
            return Ok(Some(Vec::new()));
        }
        let filter = (!repos.is_empty()).then(|| Filter::must([Condition::matches("repo", repos.to_vec())]));
        let (dims, weights) = bm25_query(query);
        // Each lane brings enough candidates for several per repository.
        let depth = (limit * 8).clamp(64, 1000) as u64;
        let groups = self.call("routing", move |c| {
            let prefetch = |query: Query, using: &str| {
                let mut p = PrefetchQueryBuilder::default().query(query).using(using).limit(depth);
                if let Some(f) = &filter {
                    p = p.filter(f.clone());
                }
                p
            };
            let mut request = QueryPointGroupsBuilder::new(name.clone(), "repo")
                .add_prefetch(prefetch(Query::new_nearest(VectorInput::new_dense(vector.clone())), DENSE))
                .query(Query::new_fusion(Fusion::Rrf))
                .group_size(1u64)
                .limit(limit as u64)
                .with_payload(false);
            if !dims.is_empty() {
                request = request.add_prefetch(prefetch(Query::new_nearest(VectorInput::new_sparse(dims.clone(), weights.clone())), BM25));
            }
            async move { c.query_groups(request).await }
        })?;
        let routed = groups
            .result
            .map(|r| r.groups)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|g| {
                let score = g.hits.first().map_or(0.0, |h| h.score);
                match g.id?.kind? {
                    group_id::Kind::StringValue(repo) => Some((repo, score)),
                    _ => None,
                }
            })
            .collect();
        Ok(Some(routed))
    }

    /// The collection, created with its payload indexes if it is missing.
    pub fn open(self: &Arc<Self>, role: &str, dim: usize) -> Result<RemoteCollection, ShardError> {
        let name = self.collection_name(role, dim);
        if !self.collection_exists(&name)? {
            let (shards, replicas) = (self.shards, self.replicas);
            let create = name.clone();
            let created = self.call("collection creation", move |c| {
                let request = CreateCollectionBuilder::new(create.clone())
                    .vectors_config({
                        let mut v = VectorsConfigBuilder::default();
                        v.add_named_vector_params(DENSE, VectorParamsBuilder::new(dim as u64, Distance::Cosine));
                        v
                    })
                    .sparse_vectors_config({
                        let mut v = SparseVectorsConfigBuilder::default();
                        v.add_named_vector_params(BM25, SparseVectorParamsBuilder::default().modifier(Modifier::Idf));
                        v
                    })
                    .shard_number(shards)
                    .replication_factor(replicas);
                async move { c.create_collection(request).await }
            });
            // Another process may have made it meanwhile.
            if let Err(e) = created
                && !self.collection_exists(&name)?
            {
                return Err(e);
            }
            for (field, kind) in
                [("repo", FieldType::Keyword), ("file_id", FieldType::Integer), ("lang", FieldType::Keyword), ("kind", FieldType::Keyword)]
            {
                let collection = name.clone();
                self.call("payload index creation", move |c| {
                    let mut request = CreateFieldIndexCollectionBuilder::new(collection.clone(), field, kind).wait(true);
                    if field == "repo" {
                        // Qdrant groups a tenant's points together on disk.
                        request = request.field_index_params(KeywordIndexParamsBuilder::default().is_tenant(true));
                    }
                    async move { c.create_field_index(request).await }
                })?;
            }
        } else {
            let info_name = name.clone();
            let size = self.call("collection info", move |c| {
                let name = info_name.clone();
                async move { c.collection_info(name).await }
            })?;
            let params = size.result.and_then(|r| r.config).and_then(|c| c.params);
            let sparse = params.as_ref().and_then(|p| p.sparse_vectors_config.as_ref()).is_some_and(|v| v.map.contains_key(BM25));
            let same = params
                .and_then(|p| p.vectors_config)
                .and_then(|v| match v.config {
                    Some(qdrant_client::qdrant::vectors_config::Config::ParamsMap(map)) => map.map.get(DENSE).map(|p| p.size == dim as u64),
                    _ => Some(false),
                })
                .unwrap_or(false);
            if !same || !sparse {
                return Err(ShardError::Qdrant(format!(
                    "the Qdrant collection {name} exists but is not one of ken's (no `{DENSE}` vector of size {dim} and `{BM25}` sparse vector); choose another vectors.collection_prefix"
                )));
            }
        }
        Ok(RemoteCollection { server: self.clone(), name })
    }
}

/// One collection on the server, scoped to this repository.
pub struct RemoteCollection {
    server: Arc<QdrantServer>,
    name: String,
}

impl RemoteCollection {
    fn point_id(&self, id: i64) -> PointId {
        let high = self.server.repo_hash;
        let low = id as u64;
        let hex = format!("{high:016x}{low:016x}");
        PointId::from(format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]))
    }

    fn index_id(id: &PointId) -> Option<i64> {
        match &id.point_id_options {
            Some(PointIdOptions::Uuid(uuid)) => {
                let hex: String = uuid.chars().filter(|c| *c != '-').collect();
                u64::from_str_radix(hex.get(16..32)?, 16).ok().map(|n| n as i64)
            }
            _ => None,
        }
    }

    fn repo_condition(&self) -> Condition {
        Condition::matches("repo", self.server.repo.clone())
    }

    /// The filter inside the server: this repository, then the request's.
    fn filter(&self, filter: &PointFilter) -> Filter {
        let mut must = vec![self.repo_condition()];
        if !filter.languages.is_empty() {
            must.push(Condition::matches("lang", filter.languages.iter().map(|l| l.name().to_string()).collect::<Vec<_>>()));
        }
        if !filter.kinds.is_empty() {
            must.push(Condition::matches("kind", filter.kinds.iter().map(|k| k.as_str().to_string()).collect::<Vec<_>>()));
        }
        if let Some(ids) = &filter.file_ids {
            must.push(Condition::matches("file_id", ids.clone()));
        }
        if let Some(ids) = &filter.point_ids {
            must.push(Condition::has_id(ids.iter().map(|&id| self.point_id(id))));
        }
        Filter::must(must)
    }

    pub fn upsert(&self, points: Vec<(i64, PointPayload<'_>, Vec<f32>)>) -> Result<(), ShardError> {
        if points.is_empty() {
            return Ok(());
        }
        let repo = &self.server.repo;
        let points: Vec<PointStruct> = points
            .into_iter()
            .map(|(id, p, dense)| {
                let payload = serde_json::json!({
                    "repo": repo, "file_id": p.file_id, "path": p.path, "lang": p.language, "kind": p.kind,
                    "chunk": p.is_chunk, "name": p.name, "qname": p.qualified_name,
                });
                let payload = qdrant_client::Payload::try_from(payload).expect("a JSON object");
                let (dims, weights) = bm25_document(&p);
                let mut vectors = NamedVectors::default().add_vector(DENSE, Vector::new_dense(dense));
                if !dims.is_empty() {
                    vectors = vectors.add_vector(BM25, Vector::new_sparse(dims, weights));
                }
                PointStruct::new(self.point_id(id), vectors, payload)
            })
            .collect();
        let name = self.name.clone();
        // gRPC messages are limited (4 MiB by default on both sides).
        for batch in points.chunks(256) {
            let batch = batch.to_vec();
            let name = name.clone();
            self.server.call("upsert", move |c| {
                let request = UpsertPointsBuilder::new(name.clone(), batch.clone()).wait(true);
                async move { c.upsert_points(request).await }
            })?;
        }
        Ok(())
    }

    fn delete(&self, filter: Filter) -> Result<(), ShardError> {
        let name = self.name.clone();
        self.server.call("delete", move |c| {
            let request = DeletePointsBuilder::new(name.clone()).points(filter.clone()).wait(true);
            async move { c.delete_points(request).await }
        })?;
        Ok(())
    }

    pub fn delete_files(&self, file_ids: &[i64]) -> Result<(), ShardError> {
        self.delete_files_except(file_ids, &[])
    }

    pub fn delete_files_except(&self, file_ids: &[i64], keep: &[i64]) -> Result<(), ShardError> {
        if file_ids.is_empty() {
            return Ok(());
        }
        let mut filter = self.filter(&PointFilter { file_ids: Some(file_ids.to_vec()), ..Default::default() });
        if !keep.is_empty() {
            filter.must_not = vec![Condition::has_id(keep.iter().map(|&id| self.point_id(id)))];
        }
        self.delete(filter)
    }

    pub fn delete_points(&self, ids: &[i64]) -> Result<(), ShardError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.delete(Filter::must([self.repo_condition(), Condition::has_id(ids.iter().map(|&id| self.point_id(id)))]))
    }

    /// Every point of this repository.
    pub fn delete_repo(&self) -> Result<(), ShardError> {
        self.delete(Filter::must([self.repo_condition()]))
    }

    pub fn search_dense(&self, vector: Vec<f32>, limit: usize, filter: &PointFilter) -> Result<Vec<(i64, f32)>, ShardError> {
        let name = self.name.clone();
        let filter = self.filter(filter);
        let points = self.server.call("search", move |c| {
            let request = QueryPointsBuilder::new(name.clone())
                .query(vector.clone())
                .using(DENSE)
                .filter(filter.clone())
                .limit(limit as u64)
                .with_payload(false);
            async move { c.query(request).await }
        })?;
        let mut scored: Vec<(i64, f32)> = points.result.iter().filter_map(|p| Some((Self::index_id(p.id.as_ref()?)?, p.score))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(scored)
    }

    pub fn count(&self) -> Result<usize, ShardError> {
        let name = self.name.clone();
        let filter = Filter::must([self.repo_condition()]);
        let counted = self.server.call("count", move |c| {
            let request = CountPointsBuilder::new(name.clone()).filter(filter.clone()).exact(true);
            async move { c.count(request).await }
        })?;
        Ok(counted.result.map_or(0, |r| r.count as usize))
    }

    /// The collection's indexed payload fields, sorted.
    pub fn indexed_payload(&self) -> Result<Vec<String>, ShardError> {
        let name = self.name.clone();
        let info = self.server.call("collection info", move |c| {
            let name = name.clone();
            async move { c.collection_info(name).await }
        })?;
        let mut fields: Vec<String> = info.result.map(|r| r.payload_schema.into_keys().collect()).unwrap_or_default();
        fields.sort();
        Ok(fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_ids_round_trip_and_differ_by_repository() {
        let config = |repo: &str| VectorsConfig { url: Some("http://127.0.0.1:1".into()), repo: Some(repo.into()), ..Default::default() };
        let a = QdrantServer::connect(&config("a"), "x").unwrap();
        let b = QdrantServer::connect(&config("b"), "x").unwrap();
        let ca = RemoteCollection { server: a, name: "c".into() };
        let cb = RemoteCollection { server: b, name: "c".into() };
        for id in [0, 1, 42, i64::MAX] {
            assert_eq!(RemoteCollection::index_id(&ca.point_id(id)), Some(id));
            assert_ne!(ca.point_id(id), cb.point_id(id));
        }
    }

    #[test]
    fn bad_settings_name_their_field() {
        let check = |config: VectorsConfig| config.problem().unwrap_or_default();
        assert!(check(VectorsConfig { url: Some("localhost:6334".into()), ..Default::default() }).starts_with("vectors.url"));
        assert!(
            check(VectorsConfig { collection_prefix: Some("a b".into()), ..Default::default() }).starts_with("vectors.collection_prefix")
        );
        assert!(check(VectorsConfig { replicas: Some(0), ..Default::default() }).starts_with("vectors.replicas"));
        assert_eq!(check(VectorsConfig { url: Some("http://a:6334, http://b:6334".into()), ..Default::default() }), "");
    }
}

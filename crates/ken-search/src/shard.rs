//! The embedded Qdrant Edge shards: `<index>/vectors` holds one point per
//! symbol or chunk that has its model's dense vector (cosine), and
//! `<index>/static` every point's static vector, written with its BM25
//! document; both carry indexed payload for filters. BM25 is not here but in SQLite (ken-store's `lexical`): Qdrant
//! Edge's in-memory sparse index pays for every insert with a walk of each
//! term's whole posting list. SQLite stays the system of record: the shard
//! can always be rebuilt from it (`ken index --rebuild`).

pub use crate::points::{DENSE, PointFilter, PointPayload, Result, ShardError};
use crate::remote::{QdrantServer, RemoteCollection};
use qdrant_edge::{
    AnyVariants, Condition, CreateIndex, Distance, EdgeConfig, EdgeOptimizersConfig, EdgeShard, EdgeVectorParams, FieldCondition,
    FieldIndexOperations, Filter, HasIdCondition, Match, NamedQuery, PayloadFieldSchema, PayloadSchemaType, PointId, PointInsertOperations,
    PointOperations, PointStruct, QueryEnum, QueryRequest, ScoringQuery, SearchParams, UpdateOperation, Vector, VectorInternal, Vectors,
    WithPayloadInterface, WithVector,
};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The model's shard.
pub const SHARD_DIR: &str = "vectors";
/// The static vectors' shard.
pub const STATIC_SHARD_DIR: &str = "static";

fn qdrant(e: impl std::fmt::Display) -> ShardError {
    ShardError::Qdrant(e.to_string())
}

/// The payload fields filters use (`to_qdrant`), and the only ones indexed:
/// the rest (path, names) is kept for whoever reads the shard, unindexed.
const FILTERED_PAYLOAD: [(&str, PayloadSchemaType); 3] =
    [("file_id", PayloadSchemaType::Integer), ("lang", PayloadSchemaType::Keyword), ("kind", PayloadSchemaType::Keyword)];

/// The filter applied inside the shard (with payload indexes), not after.
fn to_qdrant(filter: &PointFilter) -> Option<Filter> {
    let mut must = Vec::new();
    let strings = |key: &str, values: Vec<&str>| {
        Condition::Field(FieldCondition::new_match(
            key.try_into().expect("static payload key"),
            Match::new_any(AnyVariants::Strings(values.into_iter().map(Into::into).collect())),
        ))
    };
    if !filter.languages.is_empty() {
        must.push(strings("lang", filter.languages.iter().map(|l| l.name()).collect()));
    }
    if !filter.kinds.is_empty() {
        must.push(strings("kind", filter.kinds.iter().map(|k| k.as_str()).collect()));
    }
    if let Some(ids) = &filter.file_ids {
        must.push(Condition::Field(FieldCondition::new_match(
            "file_id".try_into().expect("static payload key"),
            Match::new_any(AnyVariants::Integers(ids.iter().copied().collect())),
        )));
    }
    if let Some(ids) = &filter.point_ids {
        must.push(Condition::HasId(HasIdCondition::from_iter(ids.iter().map(|&id| point_id(id)))));
    }
    (!must.is_empty()).then(|| Filter { must: Some(must), ..Filter::new() })
}

/// An open vector store of one role (the model's, static, intents): an
/// embedded Edge shard, or this repository's points in a Qdrant server's
/// collection ([`crate::remote`]). Both hold the same points and payload
/// and answer the same searches.
pub struct VectorShard {
    store: Store,
}

enum Store {
    Edge(Box<Edge>),
    Server(RemoteCollection),
}

/// An open Edge shard. Holds `vectors.lock`: Qdrant Edge allows one process per
/// shard, so writers hold it only while they write and readers while they read.
struct Edge {
    shard: Option<EdgeShard>,
    path: PathBuf,
    _lock: File,
}

impl VectorShard {
    /// Opens (creating if needed) the Edge shard `name` under `index_dir`,
    /// waiting up to `wait` for another process to let go of it. `dim` is
    /// the dense size.
    pub fn open(index_dir: &Path, name: &str, dim: usize, wait: Duration) -> Result<VectorShard> {
        Ok(VectorShard { store: Store::Edge(Box::new(Edge::open(index_dir, name, dim, wait)?)) })
    }

    /// Deletes the Edge shard directory (under the lock): the next open starts empty.
    pub fn destroy(index_dir: &Path, name: &str, wait: Duration) -> Result<()> {
        Edge::destroy(index_dir, name, wait)
    }

    /// Inserts or replaces points with their payload and dense vector.
    pub fn upsert(&self, points: Vec<(i64, PointPayload<'_>, Vec<f32>)>) -> Result<()> {
        match &self.store {
            Store::Edge(edge) => edge.upsert(points),
            Store::Server(remote) => remote.upsert(points),
        }
    }

    pub fn delete_files(&self, file_ids: &[i64]) -> Result<()> {
        match &self.store {
            Store::Edge(edge) => edge.delete_files(file_ids),
            Store::Server(remote) => remote.delete_files(file_ids),
        }
    }

    /// Deletes the files' points except `keep`: after an upsert of their
    /// new points, so a search meanwhile finds the old or the new ones,
    /// never none.
    pub fn delete_files_except(&self, file_ids: &[i64], keep: &[i64]) -> Result<()> {
        match &self.store {
            Store::Edge(edge) => edge.delete_files_except(file_ids, keep),
            Store::Server(remote) => remote.delete_files_except(file_ids, keep),
        }
    }

    pub fn delete_points(&self, ids: &[i64]) -> Result<()> {
        match &self.store {
            Store::Edge(edge) => edge.delete_points(ids),
            Store::Server(remote) => remote.delete_points(ids),
        }
    }

    /// Nearest points by dense vector: `(point id, cosine)`, best first,
    /// equal scores by id.
    pub fn search_dense(&self, vector: Vec<f32>, limit: usize, filter: &PointFilter) -> Result<Vec<(i64, f32)>> {
        match &self.store {
            Store::Edge(edge) => edge.search(VectorInternal::from(vector), DENSE, limit, filter),
            Store::Server(remote) => remote.search_dense(vector, limit, filter),
        }
    }

    /// The payload fields the store indexes, sorted.
    pub fn indexed_payload(&self) -> Result<Vec<String>> {
        match &self.store {
            Store::Edge(edge) => Ok(edge.indexed_payload()),
            Store::Server(remote) => remote.indexed_payload(),
        }
    }

    /// This repository's points.
    pub fn count(&self) -> Result<usize> {
        match &self.store {
            Store::Edge(edge) => Ok(edge.shard().info().points_count),
            Store::Server(remote) => remote.count(),
        }
    }

    /// Makes every write so far durable: the caller commits what it
    /// records in SQLite only after this, so a killed run never leaves
    /// points marked written that the store lost. (A server's writes are
    /// durable when acknowledged: they wait for its WAL.)
    pub fn flush(&self) -> Result<()> {
        match &self.store {
            Store::Edge(edge) => edge.flush(),
            Store::Server(_) => Ok(()),
        }
    }

    /// Builds the shard's vector indexes (HNSW) where segments grew large
    /// enough. A server's optimizers do this on their own.
    pub fn optimize(&self) -> Result<()> {
        match &self.store {
            Store::Edge(edge) => edge.shard().optimize().map(|_| ()).map_err(qdrant),
            Store::Server(_) => Ok(()),
        }
    }
}

impl Edge {
    fn open(index_dir: &Path, name: &str, dim: usize, wait: Duration) -> Result<Edge> {
        let path = index_dir.join(name);
        let lock = lock(index_dir, name, wait)?;
        let config = config(dim);
        let corrupt = |e: &dyn std::fmt::Display| ShardError::Corrupt { path: path.clone(), detail: e.to_string() };
        let has_config = path.join("edge_config.json").is_file();
        let shard = if has_config {
            let shard = EdgeShard::load(&path, None).map_err(|e| corrupt(&e))?;
            let same_dim = shard.config().vectors.get(DENSE).is_some_and(|v| v.size == dim);
            if !same_dim {
                return Err(ShardError::Corrupt { path, detail: "its dense vectors have another dimension".into() });
            }
            // Shards made before indexed path and names too; loading those
            // indexes cost every open (a CLI search) about 70 ms on Django.
            // Dropped once.
            for key in shard.info().payload_schema.into_keys() {
                if !FILTERED_PAYLOAD.iter().any(|(field, _)| key.to_string() == *field) {
                    shard.update(UpdateOperation::FieldIndexOperation(FieldIndexOperations::DeleteIndex(key))).map_err(qdrant)?;
                }
            }
            shard
        } else {
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).map_err(|e| corrupt(&e))?;
            check_room(&path, 0)?;
            let shard = EdgeShard::new(&path, config).map_err(|e| corrupt(&e))?;
            for (field, schema) in FILTERED_PAYLOAD {
                shard
                    .update(UpdateOperation::FieldIndexOperation(FieldIndexOperations::CreateIndex(CreateIndex {
                        field_name: field.try_into().expect("static payload key"),
                        field_schema: Some(PayloadFieldSchema::FieldType(schema)),
                    })))
                    .map_err(qdrant)?;
            }
            shard
        };
        Ok(Edge { shard: Some(shard), path, _lock: lock })
    }

    fn destroy(index_dir: &Path, name: &str, wait: Duration) -> Result<()> {
        let _lock = lock(index_dir, name, wait)?;
        match std::fs::remove_dir_all(index_dir.join(name)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(qdrant(e)),
        }
    }

    fn check_room(&self, points: &[(i64, PointPayload<'_>, Vec<f32>)]) -> Result<()> {
        // The vectors about three times over: WAL, segment and index.
        let bytes: u64 = points.iter().map(|(_, p, v)| (v.len() * 4 * 3 + p.path.len() + p.qualified_name.len() + 256) as u64).sum();
        check_room(&self.path, bytes)
    }

    fn shard(&self) -> &EdgeShard {
        self.shard.as_ref().expect("shard is open until drop")
    }

    fn upsert(&self, points: Vec<(i64, PointPayload<'_>, Vec<f32>)>) -> Result<()> {
        if points.is_empty() {
            return Ok(());
        }
        self.check_room(&points)?;
        let points = points
            .into_iter()
            .map(|(id, p, dense)| {
                PointStruct::new(
                    point_id(id),
                    Vectors::new_named([(DENSE, Vector::new_dense(dense))]),
                    serde_json::json!({
                        "file_id": p.file_id, "path": p.path, "lang": p.language, "kind": p.kind,
                        "chunk": p.is_chunk, "name": p.name, "qname": p.qualified_name,
                    }),
                )
                .into()
            })
            .collect();
        self.shard()
            .update(UpdateOperation::PointOperation(PointOperations::UpsertPoints(PointInsertOperations::PointsList(points))))
            .map_err(qdrant)
    }

    fn delete_files(&self, file_ids: &[i64]) -> Result<()> {
        if file_ids.is_empty() {
            return Ok(());
        }
        let filter = to_qdrant(&PointFilter { file_ids: Some(file_ids.to_vec()), ..Default::default() }).expect("non-empty");
        self.shard().update(UpdateOperation::PointOperation(PointOperations::DeletePointsByFilter(filter))).map_err(qdrant)
    }

    fn delete_files_except(&self, file_ids: &[i64], keep: &[i64]) -> Result<()> {
        if file_ids.is_empty() {
            return Ok(());
        }
        let mut filter = to_qdrant(&PointFilter { file_ids: Some(file_ids.to_vec()), ..Default::default() }).expect("non-empty");
        if !keep.is_empty() {
            filter.must_not = Some(vec![Condition::HasId(HasIdCondition::from_iter(keep.iter().map(|&id| point_id(id))))]);
        }
        self.shard().update(UpdateOperation::PointOperation(PointOperations::DeletePointsByFilter(filter))).map_err(qdrant)
    }

    fn delete_points(&self, ids: &[i64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.shard()
            .update(UpdateOperation::PointOperation(PointOperations::DeletePoints { ids: ids.iter().map(|&id| point_id(id)).collect() }))
            .map_err(qdrant)
    }

    fn search(&self, query: VectorInternal, using: &str, limit: usize, filter: &PointFilter) -> Result<Vec<(i64, f32)>> {
        let shard = self.shard();
        let exact = shard.info().points_count < EXACT_BELOW_POINTS;
        let points = shard
            .query(QueryRequest {
                prefetches: vec![],
                query: Some(ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery { query, using: Some(using.to_string()) }))),
                filter: to_qdrant(filter),
                score_threshold: None,
                limit,
                offset: 0,
                params: Some(SearchParams { exact, ..Default::default() }),
                with_vector: WithVector::Bool(false),
                with_payload: WithPayloadInterface::Bool(false),
            })
            .map_err(qdrant)?;
        let mut scored: Vec<(i64, f32)> = points
            .into_iter()
            .filter_map(|p| match p.id {
                PointId::NumId(n) => Some((n as i64, p.score)),
                PointId::Uuid(_) => None,
            })
            .collect();
        // Equal scores come back in any order; ranks must not.
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(scored)
    }

    fn indexed_payload(&self) -> Vec<String> {
        let mut fields: Vec<String> = self.shard().info().payload_schema.keys().map(|k| k.to_string()).collect();
        fields.sort();
        fields
    }

    fn flush(&self) -> Result<()> {
        // Qdrant Edge's flush panics on an IO error; that is an error here.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.shard().flush()))
            .map_err(|_| ShardError::Qdrant(format!("flushing {} failed (is the disk full?)", self.path.display())))
    }
}

impl Drop for Edge {
    fn drop(&mut self) {
        // Close (flush) the shard before the lock is released.
        drop(self.shard.take());
    }
}

/// Below this many points a dense search scans every vector: milliseconds
/// (tokio's 13k static vectors, Django's tens of thousands), the true
/// nearest, and the same answer from every index of the same tree. The
/// HNSW graph a larger shard is searched by is built in parallel and
/// differs from build to build, and so did its answers.
const EXACT_BELOW_POINTS: usize = 100_000;

fn point_id(id: i64) -> PointId {
    PointId::NumId(id as u64)
}

/// Qdrant Edge writes its WAL and segments through memory maps of
/// preallocated files: on a full disk a write is a SIGBUS, not an error. So
/// creating a shard or writing `bytes` to it is refused with the disk-full
/// error unless the disk has room for them plus a margin.
fn check_room(path: &Path, bytes: u64) -> Result<()> {
    const MARGIN: u64 = 16 << 20;
    let Ok(available) = fs4::available_space(path) else { return Ok(()) };
    let needed = bytes + MARGIN;
    if available < needed {
        return Err(ShardError::DiskFull { path: path.to_path_buf(), available_kib: available >> 10, needed_kib: needed >> 10 });
    }
    Ok(())
}

/// Kilobytes of vectors a segment holds before it gets an HNSW graph; below
/// it, a search is exact (every vector scored). At Qdrant's default (10
/// MB), building the graph and its per-payload links (file, language, kind)
/// took 3.1 of the 8.2 s of a cold `ken index --model static` of Django
/// 5.1.4 (35k points), and searched no faster: hybrid p50 7.7 ms with the
/// graph, 7.9 ms exact. Exact search is also exact recall.
const EXACT_SEARCH_KB: usize = 100_000;

fn config(dim: usize) -> EdgeConfig {
    EdgeConfig {
        optimizers: EdgeOptimizersConfig { indexing_threshold: Some(EXACT_SEARCH_KB), ..Default::default() },
        vectors: HashMap::from([(
            DENSE.to_string(),
            EdgeVectorParams {
                size: dim,
                distance: Distance::Cosine,
                on_disk: None,
                multivector_config: None,
                datatype: None,
                quantization_config: None,
                hnsw_config: None,
            },
        )]),
        ..Default::default()
    }
}

/// `<index>/<name>.lock`.
fn lock(index_dir: &Path, name: &str, wait: Duration) -> Result<File> {
    std::fs::create_dir_all(index_dir).map_err(qdrant)?;
    let path = index_dir.join(format!("{name}.lock"));
    let file = File::options().create(true).truncate(false).write(true).open(path).map_err(qdrant)?;
    let start = Instant::now();
    loop {
        match fs4::fs_std::FileExt::try_lock_exclusive(&file) {
            Ok(true) => return Ok(file),
            Ok(false) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(qdrant(e)),
        }
        if start.elapsed() >= wait {
            return Err(ShardError::Busy(index_dir.to_path_buf()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Where an index's vectors live.
#[derive(Clone, Default)]
pub enum VectorLocation {
    /// Embedded Qdrant Edge shards in the index directory (the default).
    #[default]
    Edge,
    /// A Qdrant server or cluster, shared with other repositories.
    Server(std::sync::Arc<QdrantServer>),
}

impl VectorLocation {
    /// What SQLite records as the place of its vectors (meta `vectors_location`).
    pub fn describe(&self) -> String {
        match self {
            VectorLocation::Edge => "edge".into(),
            VectorLocation::Server(server) => server.location(),
        }
    }
}

/// The one handle on an index's vector store of one role that a process
/// shares between its searches and its writer (Qdrant Edge allows one
/// opener per shard, and one process per shard through `vectors.lock`; a
/// server's collection has no such limit, and the same handle serves it).
///
/// A long-lived process (a server) keeps the shard open for good, so a
/// reindex writes into the same handle that searches read from. A short-lived
/// writer (`ken index`) lets go of it between batches (`release`), so another
/// process can search in between.
pub struct SharedShard {
    index_dir: PathBuf,
    name: &'static str,
    wait: Duration,
    keep: bool,
    location: VectorLocation,
    open: std::sync::Mutex<Option<std::sync::Arc<VectorShard>>>,
}

impl SharedShard {
    /// `name`: [`SHARD_DIR`], [`STATIC_SHARD_DIR`] or the intents' (the
    /// shard's directory, or its collection's role on a server).
    /// `wait`: how long an open waits for another process to let go.
    /// `keep`: hold the shard open between uses (a server) or not (a CLI run).
    pub fn new(index_dir: &Path, name: &'static str, wait: Duration, keep: bool) -> SharedShard {
        SharedShard::at(VectorLocation::Edge, index_dir, name, wait, keep)
    }

    pub fn at(location: VectorLocation, index_dir: &Path, name: &'static str, wait: Duration, keep: bool) -> SharedShard {
        SharedShard { index_dir: index_dir.to_path_buf(), name, wait, keep, location, open: Default::default() }
    }

    pub fn location(&self) -> &VectorLocation {
        &self.location
    }

    /// An error naming the server when it does not answer; Ok for a shard.
    pub fn check_reachable(&self) -> Result<()> {
        match &self.location {
            VectorLocation::Edge => Ok(()),
            VectorLocation::Server(server) => server.check_reachable(),
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<std::sync::Arc<VectorShard>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The shard, opened (and created) on first use.
    pub fn get(&self, dim: usize) -> Result<std::sync::Arc<VectorShard>> {
        let mut slot = self.slot();
        if let Some(shard) = &*slot {
            return Ok(shard.clone());
        }
        let shard = std::sync::Arc::new(match &self.location {
            VectorLocation::Edge => VectorShard::open(&self.index_dir, self.name, dim, self.wait)?,
            VectorLocation::Server(server) => VectorShard { store: Store::Server(server.open(self.name, dim)?) },
        });
        *slot = Some(shard.clone());
        Ok(shard)
    }

    /// Whether an embedded shard's directory is gone (deleted, or left out
    /// of a copy of the index) while nothing holds it open. A server's
    /// collection is not checked: that would cost a request every run.
    pub fn lost(&self) -> bool {
        matches!(self.location, VectorLocation::Edge) && self.slot().is_none() && !self.index_dir.join(self.name).is_dir()
    }

    /// The shard if it exists (opened on first use); never creates one.
    pub fn existing(&self, dim: usize) -> Result<Option<std::sync::Arc<VectorShard>>> {
        if self.slot().is_none() {
            let exists = match &self.location {
                VectorLocation::Edge => self.index_dir.join(self.name).is_dir(),
                VectorLocation::Server(server) => server.collection_exists(&server.collection_name(self.name, dim))?,
            };
            if !exists {
                return Ok(None);
            }
        }
        self.get(dim).map(Some)
    }

    /// Lets go of the shard unless this process keeps it: it closes once
    /// the last user drops its handle.
    pub fn release(&self) {
        if !self.keep {
            self.slot().take();
        }
    }

    /// Closes the shard (once its last user is done) and deletes it; on a
    /// server, deletes this repository's points from every collection of
    /// this role it may have written.
    pub fn destroy(&self) -> Result<()> {
        self.slot().take();
        match &self.location {
            VectorLocation::Edge => VectorShard::destroy(&self.index_dir, self.name, self.wait),
            VectorLocation::Server(server) => server.delete_repo_everywhere(self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new shard indexes what filters use; a shard made with the old
    /// indexes loses the unused ones when it is opened.
    #[test]
    fn only_filtered_payload_is_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let wait = Duration::from_secs(5);
        let new = VectorShard::open(dir.path(), "new", 4, wait).unwrap();
        let old_path = dir.path().join("old");
        std::fs::create_dir_all(&old_path).unwrap();
        let old = EdgeShard::new(&old_path, config(4)).unwrap();
        for field in ["file_id", "path", "lang", "kind", "name", "qname"] {
            let schema = if field == "file_id" { PayloadSchemaType::Integer } else { PayloadSchemaType::Keyword };
            old.update(UpdateOperation::FieldIndexOperation(FieldIndexOperations::CreateIndex(CreateIndex {
                field_name: field.try_into().unwrap(),
                field_schema: Some(PayloadFieldSchema::FieldType(schema)),
            })))
            .unwrap();
        }
        drop(old);
        let reopened = VectorShard::open(dir.path(), "old", 4, wait).unwrap();
        assert_eq!(new.indexed_payload().unwrap(), ["file_id", "kind", "lang"]);
        assert_eq!(reopened.indexed_payload().unwrap(), ["file_id", "kind", "lang"]);
    }

    /// A file's points are replaced new-first: the kept ids survive, the
    /// file's others go, other files' points stay.
    #[test]
    fn deleting_a_files_points_spares_the_kept_ones() {
        let dir = tempfile::tempdir().unwrap();
        let shard = VectorShard::open(dir.path(), "s", 4, Duration::from_secs(5)).unwrap();
        let point = |id: i64, file_id: i64| {
            let payload = PointPayload {
                file_id,
                path: "a.py",
                language: "python",
                kind: "function",
                is_chunk: false,
                name: "f",
                qualified_name: "a.f",
                text: "def f(): pass",
            };
            (id, payload, vec![1.0, 0.0, 0.0, id as f32])
        };
        shard.upsert(vec![point(2, 1), point(4, 1), point(6, 1), point(8, 2)]).unwrap();
        shard.delete_files_except(&[1], &[4]).unwrap();
        let mut left: Vec<i64> =
            shard.search_dense(vec![1.0, 0.0, 0.0, 0.0], 10, &PointFilter::default()).unwrap().into_iter().map(|(id, _)| id).collect();
        left.sort();
        assert_eq!(left, [4, 8]);
        shard.delete_files_except(&[2], &[]).unwrap();
        assert_eq!(shard.count().unwrap(), 1);
    }
}

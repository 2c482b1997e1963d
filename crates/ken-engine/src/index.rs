//! `Engine::index`: every phase of an index run, in this process.

use crate::intents::{IntentProgress, IntentReport};
use crate::{Engine, Error, ErrorKind};
use ken_embed::{Embedder, ModelSpec, Resolver};
use ken_index::{IndexOptions, IndexSummary};
use ken_search::StaticVectors;
use ken_store::{EmbedProgress, Store};
use serde::Serialize;
use std::time::Instant;

/// Once the runs since the last compaction have changed this share of the
/// index's files (a first run changes them all), the database is rewritten
/// densely. Rows inserted file by file leave B-tree pages part full, and
/// BM25 segments pile up; a rewrite costs about what the run cost.
const COMPACT_SHARE: f64 = 0.25;

/// The files changed since the last compaction (meta key).
const UNCOMPACTED_KEY: &str = "uncompacted_changes";

/// Compacts the database when the runs since the last compaction changed
/// enough of it; returns the seconds spent, if it did. A compaction that fails (the
/// disk too full for `VACUUM`'s copy) leaves the index as it was and is
/// only logged: the run's work is stored.
fn compact_if_due(store: &mut Store, summary: &IndexSummary) -> Result<Option<f64>, Error> {
    let c = &summary.changes;
    let changed = c.added + c.modified + c.renamed + c.deleted;
    if changed == 0 {
        return Ok(None);
    }
    let pending = store.meta(UNCOMPACTED_KEY)?.and_then(|v| v.parse::<u64>().ok()).unwrap_or(0) + changed;
    if (pending as f64) < COMPACT_SHARE * summary.files.max(1) as f64 {
        store.set_meta(UNCOMPACTED_KEY, &pending.to_string())?;
        return Ok(None);
    }
    let started = Instant::now();
    store.set_meta(UNCOMPACTED_KEY, "0")?;
    if let Err(e) = store.compact() {
        tracing::warn!("compacting the index failed (it stays as it was): {e}");
        store.set_meta(UNCOMPACTED_KEY, &pending.to_string())?;
        return Ok(None);
    }
    Ok(Some(started.elapsed().as_secs_f64()))
}

/// What to index and how. `options.root` and `options.index_dir` are the engine's.
#[derive(Clone, Debug)]
pub struct IndexRequest {
    /// Walk, mining budget, vendored directories, rebuild, graph.
    pub options: IndexOptions,
    /// Embed the points that lack a vector (else BM25, names and the graph only).
    pub embed: bool,
    /// With `embed`, also run the model over the points that lack its
    /// vector; without, only the static lane (which comes with the points)
    /// is written, and the model's vectors wait for a later run (`ken
    /// watch` makes a change searchable first and embeds it after).
    pub model_vectors: bool,
    /// Points a transformer embeds per batch (default 256). A cancel waits
    /// for the batch under way, so a watcher, which cancels the embedding
    /// when a file changes, takes small ones.
    pub model_batch: Option<usize>,
    /// Throw the vectors away and embed everything again.
    pub reembed: bool,
    /// Skip mining: only bring points and embeddings up to date.
    pub embed_only: bool,
    /// Another index of the same repository (another commit, a CI
    /// artifact): its embeddings are reused for every unchanged text.
    pub seed: Option<std::path::PathBuf>,
    /// Also write MutaGReP intents with the language model (`--intents`).
    pub intents: bool,
}

impl Default for IndexRequest {
    fn default() -> IndexRequest {
        IndexRequest {
            options: IndexOptions::new(Default::default(), Default::default()),
            embed: true,
            model_vectors: true,
            model_batch: None,
            reembed: false,
            embed_only: false,
            seed: None,
            intents: false,
        }
    }
}

/// Where a run is, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub enum IndexProgress {
    Files(ken_index::Progress),
    /// Writing the points and their BM25 documents.
    Points,
    Embedding(EmbedProgress),
    /// Writing intents (`--intents`), then embedding them.
    Intents(IntentProgress),
}

/// What a run did: the mining summary (none with `embed_only`), then the
/// points and embeddings. Serialized flat, with the vector phases under `vectors`.
#[derive(Clone, Debug, Serialize)]
pub struct IndexReport {
    #[serde(flatten)]
    pub summary: Option<IndexSummary>,
    pub vectors: VectorReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intents: Option<IntentReport>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct VectorReport {
    /// Embeddings copied from the index given as `seed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeded: Option<u64>,
    pub sync: ken_search::SyncSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed: Option<ken_search::EmbedSummary>,
    /// Why embedding was skipped (the default model could not be loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl Engine {
    /// Brings the index up to date: walk, mine and store, link, points with
    /// their BM25 documents, then (unless `embed` is false) embeddings, all
    /// in this process and through the engine's one shard handle. One run
    /// at a time; a second call waits. A killed run resumes on the next;
    /// so does one stopped by [`Engine::cancel_index`] (or by cancelling
    /// `request.options.cancel`), which answers `ErrorKind::Cancelled`.
    pub fn index(&self, request: &IndexRequest, progress: &(dyn Fn(IndexProgress) + Sync)) -> Result<IndexReport, Error> {
        let _one_at_a_time = self.indexing.lock().unwrap_or_else(|e| e.into_inner());
        *self.cancel.lock().unwrap_or_else(|e| e.into_inner()) = request.options.cancel.clone();
        let started = Instant::now();
        let mut options = request.options.clone();
        options.root = self.root.clone();
        options.index_dir = self.index_dir.clone();
        // Linking and the BM25 points need nothing of each other: they run
        // side by side below, each on its own connection.
        let link = options.graph;
        options.graph = false;
        let mut summary = if request.embed_only { None } else { Some(ken_index::index(&options, &|p| progress(IndexProgress::Files(p)))?) };
        let mut store = Store::open_for_write(&self.index_dir)?;
        let link_store = if link && summary.is_some() { Some(store.sibling()?) } else { None };
        let (linked, vectors) = std::thread::scope(|scope| {
            let linked = link_store.map(|mut link_store| {
                scope.spawn(move || -> Result<(ken_graph::LinkSummary, f64), Error> {
                    let started = Instant::now();
                    progress(IndexProgress::Files(ken_index::Progress::Linking));
                    Ok((ken_graph::link(&mut link_store)?, started.elapsed().as_secs_f64()))
                })
            });
            progress(IndexProgress::Points);
            let vectors = self.vector_phases(&mut store, request, &options.cancel, progress);
            let linked = linked.map(|l| l.join().unwrap_or_else(|_| Err(Error::internal("linking panicked")))).transpose();
            (linked, vectors)
        });
        let (linked, (vectors, embedder)) = (linked?, vectors?);
        // Intents last: they need the graph's symbols settled, and the
        // model that embeds them. A run without --intents still embeds
        // intents written before that have no vector yet.
        let intents = match embedder.as_deref() {
            _ if options.cancel.is_cancelled() => None,
            embedder if request.intents => {
                Some(self.intent_phase(&mut store, embedder, &options.cancel, &|p| progress(IndexProgress::Intents(p)))?)
            }
            Some(embedder) if store.intent_counts()?.0 > 0 => {
                self.intent_vectors(&mut store, embedder, &options.cancel, &|p| progress(IndexProgress::Intents(p)))?;
                None
            }
            _ => None,
        };
        if let Some(summary) = &mut summary
            && !options.cancel.is_cancelled()
            && let Some(seconds) = compact_if_due(&mut store, summary)?
        {
            summary.compacted = true;
            summary.phases.compact = seconds;
        }
        if let Some(summary) = &mut summary {
            if let Some((graph, seconds)) = linked {
                summary.graph = graph;
                summary.phases.link = seconds;
            }
            summary.phases.lexical = vectors.sync.seconds;
            summary.phases.embed = vectors.embed.as_ref().map_or(0.0, |e| e.seconds);
            // The whole run's time, every phase included.
            summary.seconds = started.elapsed().as_secs_f64();
        }
        if let Ok(mut embedder) = self.embedder.lock() {
            // A rebuild or a new model may have changed what queries embed with.
            *embedder = None;
        }
        if options.cancel.is_cancelled() {
            return Err(Error::new(ErrorKind::Cancelled, "the index run was cancelled; what it stored stays, and the next run resumes"));
        }
        Ok(IndexReport { summary, vectors, intents })
    }

    /// Asks the running index run, if any, to stop after its current batch.
    /// Returns whether one was running.
    pub fn cancel_index(&self) -> bool {
        let running = self.indexing.try_lock().is_err();
        if running {
            self.cancel.lock().unwrap_or_else(|e| e.into_inner()).cancel();
        }
        running
    }

    /// Points and BM25 documents, then embeddings. The engine's explicit
    /// model must load; the default model only warns, since BM25 and names
    /// work without it.
    fn vector_phases(
        &self,
        store: &mut Store,
        request: &IndexRequest,
        cancel: &ken_core::Cancel,
        progress: &(dyn Fn(IndexProgress) + Sync),
    ) -> Result<(VectorReport, Option<Box<dyn Embedder>>), Error> {
        if request.options.rebuild || request.reembed {
            ken_search::reset(store, &self.shards, &self.statics)?;
            self.intent_shards.destroy()?;
        }
        let seeded = match &request.seed {
            Some(seed) if !seed.join(ken_store::DB_FILE).is_file() => {
                return Err(Error::invalid("seed", format!("{} holds no Kenning index", seed.display())));
            }
            Some(seed) => Some(store.seed_embeddings(seed)?),
            None => None,
        };
        let (spec, spec_text, explicit) = match &self.model {
            Some((spec, text)) => (spec.clone(), text.clone(), true),
            None => {
                let text = ken_search::index_model_spec(store)?;
                let spec = ModelSpec::parse(&text).map_err(|e| Error::new(crate::ErrorKind::ModelUnavailable, e))?;
                (spec, text, false)
            }
        };
        let known_model = ken_search::indexed_model(store)?.map(|(id, _)| id);
        // Static vectors come with the points: semantic search works seconds
        // after the first run starts, long before the model's vectors.
        // When the model is the static one, its own vectors are the static
        // lane: one pass writes them, not two.
        let model_is_static = spec == ModelSpec::Static;
        let (static_embedder, static_warning) = if request.embed && !model_is_static { self.static_embedder() } else { (None, None) };
        if static_embedder.is_none() && ken_search::static_model(store)?.is_some() {
            // Points synced from now on get no static vector: the lane is
            // off until a run with one writes every point again.
            ken_search::drop_static(store, &self.statics)?;
        }
        let statics = static_embedder.as_deref().map(|embedder| StaticVectors { shards: &self.statics, embedder });
        let sync = ken_search::sync_points(store, &self.shards, statics, known_model.as_deref(), cancel)?;
        let mut report = VectorReport { sync, seeded, warning: static_warning, ..VectorReport::default() };
        if !request.embed || !request.model_vectors {
            return Ok((report, None));
        }
        // The spec already names any model directory; the resolver must not add KEN_MODEL_DIR's.
        let resolver = Resolver { explicit_dir: None, ..Resolver::default() };
        let embedder = match resolver.load(&spec) {
            Ok(e) => e,
            Err(e) if !explicit => {
                report.warning = Some(format!("embeddings skipped: {e}"));
                return Ok((report, None));
            }
            Err(e) => return Err(Error::new(crate::ErrorKind::ModelUnavailable, e.to_string())),
        };
        progress(IndexProgress::Embedding(store.embed_progress()?));
        // A transformer's batches are small so progress shows; a cheap
        // embedder's (static vectors) come a hundred times faster, and each
        // batch's flush and bookkeeping would cost more than its embedding.
        let batch = if embedder.is_cheap() { 8192 } else { request.model_batch.unwrap_or(256).max(1) };
        let summary = ken_search::embed_pending(store, &self.shards, statics, embedder.as_ref(), &spec_text, batch, cancel, |p| {
            progress(IndexProgress::Embedding(*p))
        })?;
        report.embed = Some(summary);
        Ok((report, Some(embedder)))
    }
}

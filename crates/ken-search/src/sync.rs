//! Keeps the BM25 index and the shard in step with SQLite, then embeds what
//! lacks a vector.
//!
//! Two phases, both resumable:
//! 1. [`sync_points`]: every file marked unsynced gets its old points
//!    deleted and its symbols and chunks written as points with their BM25
//!    documents (SQLite, one transaction per batch) and their static
//!    vectors (the static shard, a table lookup per token); those whose
//!    model vector is already in the embedding cache go into the model's
//!    shard too. Lexical and static semantic search work from here on.
//! 2. [`embed_pending`]: points without a dense vector are embedded, symbols
//!    first, in batches; each batch is cached in SQLite, written to the
//!    shard, then marked done. A killed run loses at most one batch.

use crate::lexical;
use crate::shard::{PointPayload, ShardError, SharedShard, VectorShard};
use ken_core::{Cancel, Chunk, ChunkContext, SymbolKind};
use ken_embed::Embedder;
use ken_store::{EmbedProgress, PointRow, Store, StoreError, UnitText};
use rayon::prelude::*;
use serde::Serialize;
use std::time::{Duration, Instant};

/// Default dense size before any model is chosen (MiniLM's).
pub const DEFAULT_DIM: usize = 384;
/// How long a writer waits for a searcher in another process to let go of the shard.
pub const WRITER_WAIT: Duration = Duration::from_secs(60);
/// Code read into an embedding text: the model reads 256 tokens at most.
const EMBED_CODE_CHARS: usize = 1600;
/// The most of a holder's docstring a member's embedding text repeats.
const SUMMARY_CHARS: usize = 300;

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error(transparent)]
    Embed(#[from] ken_embed::EmbedError),
    #[error(
        "this index was embedded with `{indexed}`, not `{requested}`; run `ken index --model {spec} --reembed` to embed it again with the new model"
    )]
    ModelMismatch { indexed: String, requested: String, spec: String },
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct SyncSummary {
    pub files_synced: u64,
    pub files_removed: u64,
    pub points_written: u64,
    pub seconds: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct EmbedSummary {
    pub model: String,
    pub embedded: u64,
    pub from_cache: u64,
    pub tokens: u64,
    pub seconds: f64,
    pub progress: EmbedProgress,
}

/// Dense size the shard was created with (meta `embed_dim`).
pub fn shard_dim(store: &Store) -> Result<usize, StoreError> {
    Ok(store.meta("embed_dim")?.and_then(|d| d.parse().ok()).unwrap_or(DEFAULT_DIM))
}

/// The model the index's vectors come from, if any were made.
pub fn indexed_model(store: &Store) -> Result<Option<(String, String)>, StoreError> {
    Ok(match (store.meta("embed_model")?, store.meta("embed_spec")?) {
        (Some(id), Some(spec)) if !id.is_empty() => Some((id, spec)),
        _ => None,
    })
}

/// The model spec to embed queries with when none is given: the one the
/// index was embedded with, else the default.
pub fn index_model_spec(store: &Store) -> Result<String, StoreError> {
    Ok(indexed_model(store)?.map(|(_, spec)| spec).unwrap_or_else(|| ken_embed::ModelSpec::DEFAULT.to_string()))
}

/// Throws away the shards and every record of them; the next sync rebuilds them.
pub fn reset(store: &mut Store, shards: &SharedShard, statics: &SharedShard) -> Result<(), SyncError> {
    shards.destroy()?;
    statics.destroy()?;
    store.reset_points()?;
    for key in ["embed_model", "embed_spec", STATIC_MODEL_KEY] {
        store.set_meta(key, "")?;
    }
    Ok(())
}

/// Meta key: where the vectors are ([`crate::VectorLocation::describe`]).
const LOCATION_KEY: &str = "vectors_location";

/// Meta key: the static embedder the static shard was written with.
const STATIC_MODEL_KEY: &str = "static_model";

/// Meta key: the version of what a point's texts hold ([`embed_text`],
/// [`bm25_text`]). Bump it when they change: every point is written again
/// (a model's vectors come back from the embedding cache where the text is
/// the same). 2: members' texts carry their holder's docstring.
const POINT_TEXT_KEY: &str = "point_text";
const POINT_TEXT_VERSION: &str = "2";

/// The static lane's writer side: its shard and embedder.
#[derive(Clone, Copy)]
pub struct StaticVectors<'a> {
    pub shards: &'a SharedShard,
    pub embedder: &'a dyn Embedder,
}

/// Turns the static lane off: its shard and its record go.
pub fn drop_static(store: &mut Store, statics: &SharedShard) -> Result<(), SyncError> {
    statics.destroy()?;
    store.set_meta(STATIC_MODEL_KEY, "")?;
    Ok(())
}

/// The static embedder the index's static shard holds vectors of, if any.
pub fn static_model(store: &Store) -> Result<Option<String>, StoreError> {
    Ok(store.meta(STATIC_MODEL_KEY)?.filter(|id| !id.is_empty()))
}

/// Phase 1: brings the points, their BM25 documents and the shard in line
/// with the index.
pub fn sync_points(
    store: &mut Store,
    shards: &SharedShard,
    statics: Option<StaticVectors<'_>>,
    model: Option<&str>,
    cancel: &Cancel,
) -> Result<SyncSummary, SyncError> {
    let start = Instant::now();
    let mut summary = SyncSummary::default();
    let here = shards.location().describe();
    if store.meta(LOCATION_KEY)?.unwrap_or_else(|| "edge".into()) != here {
        // Another vector store than last run's: every point is written
        // again (model vectors from the embedding cache, not embedded again),
        // once the new store answers, so one that does not leaves the index as it was.
        shards.check_reachable()?;
        store.reset_points()?;
        store.set_meta(LOCATION_KEY, &here)?;
    }
    // A shard directory gone while SQLite records points written there
    // (searches said "run `ken index`", and the run found nothing to do):
    // they are written again, the model's vectors from the embedding cache.
    if let Some(lane) = statics
        && lane.shards.lost()
        && store.embed_totals()?.total > 0
    {
        tracing::warn!("the static vectors' shard is gone; every point is written again");
        store.reset_points()?;
    }
    if shards.lost() && store.embed_totals()?.embedded > 0 {
        tracing::warn!("the model's vector shard is gone; its vectors are written again");
        store.reset_dense()?;
    }
    if let Some(lane) = statics
        && static_model(store)?.as_deref() != Some(lane.embedder.model_id())
    {
        // New (or first) static vectors: every point is written again.
        lane.shards.destroy()?;
        store.reset_points()?;
        store.set_meta(STATIC_MODEL_KEY, lane.embedder.model_id())?;
    }
    if store.meta(POINT_TEXT_KEY)?.as_deref() != Some(POINT_TEXT_VERSION) {
        store.reset_points()?;
        store.set_meta(POINT_TEXT_KEY, POINT_TEXT_VERSION)?;
    }
    let gone = store.deleted_point_files()?;
    let unsynced = store.unsynced_files()?;
    if gone.is_empty() && unsynced.is_empty() {
        return Ok(summary);
    }
    let dim = shard_dim(store)?;
    if !gone.is_empty()
        && let Some(shard) = shards.existing(dim)?
    {
        shard.delete_files(&gone)?;
    }
    if let Some(lane) = statics
        && !gone.is_empty()
        && let Some(shard) = lane.shards.existing(lane.embedder.dim())?
    {
        shard.delete_files(&gone)?;
    }
    store.put_points(&[], &gone)?;
    summary.files_removed = gone.len() as u64;
    // Batch n is written while batch n+1 is tokenized on the other cores.
    let batches = sync_batches(&unsynced);
    let static_embedder = statics.map(|lane| lane.embedder);
    let mut next = match batches.first() {
        Some(first) => prepare(read_units(store, first)?, model.is_some(), static_embedder)?,
        None => Prepared::default(),
    };
    for (i, batch) in batches.iter().enumerate() {
        if cancel.is_cancelled() {
            break; // the rest stays unsynced for the next run
        }
        let current = std::mem::take(&mut next);
        let following = batches.get(i + 1).map(|b| read_units(store, b)).transpose()?;
        let (written, prepared) = rayon::join(
            || write_batch(store, shards, statics, dim, model, batch, current),
            || following.map(|units| prepare(units, model.is_some(), static_embedder)).transpose(),
        );
        summary.points_written += written?;
        let prepared = prepared?.unwrap_or_default();
        summary.files_synced += batch.len() as u64;
        next = prepared;
    }
    shards.release();
    if let Some(lane) = statics {
        lane.shards.release();
    }
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Files whose points one transaction writes: at most this many, and
/// about this many bytes of source. Two batches are in memory at once (one
/// written while the next is prepared), each unit's text several times
/// over: windows-sys's 19 MB in one batch of its 255 files peaked at 790 MiB.
const SYNC_BATCH_FILES: usize = 256;
const SYNC_BATCH_BYTES: u64 = 4 << 20;

/// Consecutive files cut into batches by count and bytes; a file bigger
/// than the byte budget is a batch alone.
fn sync_batches(files: &[(i64, u64)]) -> Vec<Vec<i64>> {
    let mut batches: Vec<Vec<i64>> = Vec::new();
    let mut bytes = 0;
    for &(id, size) in files {
        match batches.last_mut() {
            Some(batch) if batch.len() < SYNC_BATCH_FILES && bytes + size <= SYNC_BATCH_BYTES => {
                batch.push(id);
                bytes += size;
            }
            _ => {
                batches.push(vec![id]);
                bytes = size;
            }
        }
    }
    batches
}

/// A batch's units per file and, for each unit, its embedding-text hash,
/// BM25 documents (names, body) and static vector (when there is a static
/// embedder).
#[derive(Default)]
struct Prepared {
    units: Vec<(i64, Vec<UnitText>)>,
    docs: Vec<Vec<([u8; 16], String, String)>>,
    statics: Vec<Vec<Vec<f32>>>,
}

fn read_units(store: &Store, batch: &[i64]) -> Result<Vec<(i64, Vec<UnitText>)>, StoreError> {
    batch.iter().map(|&file_id| Ok((file_id, store.units_of_file(file_id)?))).collect()
}

/// BM25 documents, static vectors and (when the index has a model whose
/// cache could hold them) embedding-text hashes, on every core.
fn prepare(units: Vec<(i64, Vec<UnitText>)>, hashes: bool, statics: Option<&dyn Embedder>) -> Result<Prepared, SyncError> {
    let per_file: Vec<Result<_, SyncError>> = units
        .into_par_iter()
        .map(|(file_id, mut units)| {
            // Every member signs its class's document, a point or not.
            let members = member_signatures(&units);
            units.retain(has_own_point);
            // The text a model reads: for its hash and the static vectors,
            // not for BM25 (a lexical-only run skips it).
            let texts: Vec<String> = match hashes || statics.is_some() {
                true => units.iter().map(embed_text).collect(),
                false => Vec::new(),
            };
            let chunked: rustc_hash::FxHashSet<i64> = units.iter().filter(|u| u.is_chunk).filter_map(|u| u.symbol_id).collect();
            let docs = units
                .iter()
                .enumerate()
                .map(|(i, unit)| {
                    let own_chunk = unit.symbol_id.is_some_and(|id| chunked.contains(&id));
                    let members = if unit.is_chunk { None } else { members.get(unit.qualified_name.as_str()) };
                    let (names, body) = bm25_text(unit, own_chunk, members.map(String::as_str));
                    let hash = if hashes { text_hash(&texts[i]) } else { [0; 16] };
                    (hash, lexical::document_tokens(&names), lexical::document_tokens(&body))
                })
                .collect::<Vec<_>>();
            let vectors = match statics {
                Some(embedder) => embedder.embed_documents(&texts.iter().map(String::as_str).collect::<Vec<_>>())?,
                None => Vec::new(),
            };
            Ok(((file_id, units), docs, vectors))
        })
        .collect();
    let mut prepared = Prepared::default();
    for result in per_file {
        let (units, docs, vectors) = result?;
        prepared.units.push(units);
        prepared.docs.push(docs);
        prepared.statics.push(vectors);
    }
    Ok(prepared)
}

/// Writes one batch's points and BM25 rows (and, when their vectors are
/// cached, their dense points) in one transaction; returns the points written.
fn write_batch(
    store: &mut Store,
    shards: &SharedShard,
    statics: Option<StaticVectors<'_>>,
    dim: usize,
    model: Option<&str>,
    batch: &[i64],
    prepared: Prepared,
) -> Result<u64, SyncError> {
    let Prepared { units, docs, statics: static_vectors } = prepared;
    let hashes: Vec<[u8; 16]> = docs.iter().flatten().map(|d| d.0).collect();
    let cached = match model {
        Some(model) => store.cached_embeddings(model, &hashes)?,
        None => Default::default(),
    };
    let mut rows = Vec::with_capacity(units.len());
    let mut embedded = Vec::new();
    for ((file_id, units), docs) in units.iter().zip(docs) {
        let mut file_rows = Vec::with_capacity(units.len());
        for (unit, (hash, names, body)) in units.iter().zip(docs) {
            let dense = cached.get(&hash).cloned();
            file_rows.push(PointRow { id: unit.point_id, is_chunk: unit.is_chunk, text_hash: hash, dense: dense.is_some(), names, body });
            if let Some(dense) = dense {
                embedded.push((unit.point_id, payload(unit), dense));
            }
        }
        rows.push((*file_id, file_rows));
    }
    // The shard holds only embedded points: opened when it exists or when
    // a cached vector must go in, so a lexical-only index never touches it.
    let shard = if embedded.is_empty() { shards.existing(dim)? } else { Some(shards.get(dim)?) };
    if let Some(shard) = shard {
        replace_files(&shard, batch, embedded)?;
    }
    if let Some(lane) = statics {
        let points: Vec<_> = units
            .iter()
            .zip(static_vectors)
            .flat_map(|((_, units), vectors)| units.iter().zip(vectors).map(|(unit, v)| (unit.point_id, payload(unit), v)))
            .collect();
        replace_files(&*lane.shards.get(lane.embedder.dim())?, batch, points)?;
    }
    store.put_points(&rows, &[])?;
    ken_core::failpoint("index.lexical_batch");
    Ok(rows.iter().map(|(_, r)| r.len() as u64).sum())
}

fn payload(unit: &UnitText) -> PointPayload<'_> {
    PointPayload {
        file_id: unit.file_id,
        path: &unit.path,
        language: unit.language.name(),
        kind: unit.kind.as_str(),
        is_chunk: unit.is_chunk,
        name: &unit.name,
        qualified_name: &unit.qualified_name,
        text: head(&unit.code, 8000),
    }
}

/// The files' points in `shard` become `points`, durable before the caller
/// records them in SQLite. New points go in before old ones go out: a
/// server searching during its own reindex finds these files' old points
/// or their new ones, never neither.
fn replace_files(shard: &VectorShard, files: &[i64], points: Vec<(i64, PointPayload<'_>, Vec<f32>)>) -> Result<(), SyncError> {
    let keep: Vec<i64> = points.iter().map(|(id, _, _)| *id).collect();
    shard.upsert(points)?;
    shard.delete_files_except(files, &keep)?;
    shard.flush()?;
    Ok(())
}

/// Phase 2: embeds points that lack a dense vector, symbols first, calling
/// `progress` after each batch. Stops early (resumably) when cancelled.
#[allow(clippy::too_many_arguments)]
pub fn embed_pending(
    store: &mut Store,
    shards: &SharedShard,
    statics: Option<StaticVectors<'_>>,
    embedder: &dyn Embedder,
    spec: &str,
    batch: usize,
    cancel: &Cancel,
    mut progress: impl FnMut(&EmbedProgress),
) -> Result<EmbedSummary, SyncError> {
    let start = Instant::now();
    let model = embedder.model_id().to_string();
    check_model(store, shards, statics, embedder, spec)?;
    let mut summary = EmbedSummary { model: model.clone(), ..Default::default() };
    // Recomputing a cheap embedder's vectors costs no more than a lookup.
    let cache = !embedder.is_cheap();
    loop {
        if cancel.is_cancelled() {
            break;
        }
        let ids = store.pending_points(batch.max(1))?;
        if ids.is_empty() {
            break;
        }
        let units = store.units_to_embed(&ids)?;
        let texts: Vec<String> = units.iter().map(embed_text).collect();
        let hashes: Vec<[u8; 16]> = texts.iter().map(|t| text_hash(t)).collect();
        let cached = if cache { store.cached_embeddings(&model, &hashes)? } else { Default::default() };
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| !cached.contains_key(&hashes[i])).collect();
        let missing_texts: Vec<&str> = missing.iter().map(|&i| texts[i].as_str()).collect();
        let (fresh, tokens) = embedder.embed_documents_counting(&missing_texts)?;
        summary.tokens += tokens as u64;
        let new_rows: Vec<([u8; 16], &[f32])> = missing.iter().zip(&fresh).map(|(&i, v)| (hashes[i], v.as_slice())).collect();
        if cache {
            store.put_embeddings(&model, &new_rows)?;
        }
        summary.embedded += fresh.len() as u64;
        summary.from_cache += (texts.len() - fresh.len()) as u64;
        let mut points = Vec::with_capacity(units.len());
        let mut fresh_iter = fresh.into_iter();
        for (i, unit) in units.iter().enumerate() {
            let v = match cached.get(&hashes[i]) {
                Some(v) => v.clone(),
                None => fresh_iter.next().unwrap_or_default(),
            };
            points.push((unit.point_id, payload(unit), v));
        }
        // Points whose unit vanished (should not happen after a sync) are dropped.
        let found: rustc_hash::FxHashSet<i64> = units.iter().map(|u| u.point_id).collect();
        let vanished: Vec<i64> = ids.iter().copied().filter(|id| !found.contains(id)).collect();
        {
            let shard = shards.get(embedder.dim())?;
            shard.upsert(points)?;
            shard.delete_points(&vanished)?;
            // Durable before `mark_dense`, also in a server that keeps it open.
            shard.flush()?;
        }
        // Between batches, searches in other processes get their turn.
        shards.release();
        store.mark_dense(&ids)?;
        ken_core::failpoint("index.embed_batch");
        progress(&store.embed_progress()?);
    }
    summary.progress = store.embed_progress()?;
    if summary.progress.complete() && summary.embedded > 0 {
        shards.get(embedder.dim())?.optimize()?;
        shards.release();
    }
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Records the model on first use; refuses to mix vectors of two models.
fn check_model(
    store: &mut Store,
    shards: &SharedShard,
    statics: Option<StaticVectors<'_>>,
    embedder: &dyn Embedder,
    spec: &str,
) -> Result<(), SyncError> {
    match indexed_model(store)? {
        Some((id, _)) if id == embedder.model_id() => Ok(()),
        Some((id, _)) if store.embed_progress()?.embedded() > 0 => {
            Err(SyncError::ModelMismatch { indexed: id, requested: embedder.model_id().to_string(), spec: spec.to_string() })
        }
        _ => {
            if shard_dim(store)? != embedder.dim() {
                // A new dense size needs a new shard; points are written again.
                shards.destroy()?;
                store.reset_points()?;
                store.set_meta("embed_dim", &embedder.dim().to_string())?;
                sync_points(store, shards, statics, Some(embedder.model_id()), &Cancel::default())?;
            } else {
                store.reset_dense()?;
            }
            store.set_meta("embed_model", embedder.model_id())?;
            store.set_meta("embed_spec", spec)?;
            Ok(())
        }
    }
}

/// What gets embedded: a symbol as kind, qualified name, signature,
/// docstring and the head of its code; a chunk with its context header.
pub fn embed_text(unit: &UnitText) -> String {
    let mut text = if unit.is_chunk {
        chunk_header(unit)
    } else {
        let mut t = format!("{} {}\n{}", unit.kind, unit.qualified_name, unit.signature);
        if let Some(doc) = &unit.docstring {
            t.push('\n');
            t.push_str(doc);
        }
        t
    };
    let enclosed = !unit.is_chunk || unit.class.as_ref().is_some_and(|c| c.3);
    if let Some(summary) = unit.parent_doc.as_deref().map(doc_summary).filter(|s| enclosed && !s.is_empty()) {
        text.push('\n');
        text.push_str(summary);
    }
    text.push('\n');
    text.push_str(head(&unit.code, EMBED_CODE_CHARS));
    text
}

/// A docstring's first paragraph, at most [`SUMMARY_CHARS`] (cut at a word).
fn doc_summary(doc: &str) -> &str {
    let doc = doc.trim_start();
    let paragraph = doc.split("\n\n").next().unwrap_or(doc).trim_end();
    if paragraph.len() <= SUMMARY_CHARS {
        return paragraph;
    }
    let cut = head(paragraph, SUMMARY_CHARS);
    cut.rfind(char::is_whitespace).map_or(cut, |at| &cut[..at])
}

/// RepoGPT's context header of a chunk.
pub fn chunk_header(unit: &UnitText) -> String {
    let context = |c: &Option<(String, u32, u32, bool)>| {
        c.as_ref().map(|(name, start_line, end_line, encloses)| ChunkContext {
            symbol: 0,
            name: name.clone(),
            start_line: *start_line,
            end_line: *end_line,
            encloses: *encloses,
        })
    };
    let chunk = Chunk {
        start_line: unit.start_line,
        end_line: unit.end_line,
        start_byte: 0,
        end_byte: 0,
        symbol: None,
        class: context(&unit.class),
        method: context(&unit.method),
    };
    let language = unit.language;
    let canonical = if unit.kind == SymbolKind::Module { "" } else { unit.qualified_name.as_str() };
    ken_mine::render_header(&unit.path, language, &chunk, canonical)
}

/// What BM25 sees: names (boosted), then signature, docstring and code.
/// A unit's BM25 document: `(names, body)`. A chunk's body is its code
/// (with the class and method it sits in); a symbol's is its signature and
/// docstring, and its code only when no chunk is named after it (a small
/// method inside its class's chunk: a hit on that chunk would name the
/// class). The chunks tile every file, so other symbols' code is indexed
/// once already: copying it again (every method again inside its class)
/// made BM25 a third of the index, and measured no better (bench/README.md,
/// footprint).
fn bm25_text(unit: &UnitText, own_chunk: bool, members: Option<&str>) -> (String, String) {
    let mut text = String::new();
    if unit.is_chunk {
        for (name, ..) in unit.class.iter().chain(&unit.method) {
            text.push_str(name);
            text.push(' ');
        }
        text.push_str(head(&unit.code, 8000));
        return (String::new(), text);
    }
    text.push_str(&unit.signature);
    if let Some(doc) = &unit.docstring {
        text.push('\n');
        text.push_str(doc);
    }
    if !own_chunk {
        text.push('\n');
        text.push_str(head(&unit.code, 8000));
    } else if let Some(members) = members {
        // A class answers "how does X work" by what it has: its members'
        // signatures stand in for the code its document no longer holds.
        text.push('\n');
        text.push_str(head(members, 8000));
    }
    (format!("{} {}", unit.name, unit.qualified_name), text)
}

/// Whether a unit is a point of its own (BM25 document and vectors). A
/// one-line field, enum variant or constant is not: the chunk or class
/// that holds it carries its words, and the exact lane finds its name.
/// Dense bindings are little else (windows-sys 0.61.2: 192,602 of its
/// 225,382 symbols besides modules; its index 163.6 → 130.9 MB), and in
/// questions in words such members had crowded out the code that uses them.
fn has_own_point(unit: &UnitText) -> bool {
    unit.is_chunk || !(matches!(unit.kind, SymbolKind::Field | SymbolKind::Constant) && unit.start_line == unit.end_line)
}

/// Each symbol's members' signatures, one a line, by the symbol's
/// qualified name (a member's is its parent's, a separator and its name).
fn member_signatures(units: &[UnitText]) -> rustc_hash::FxHashMap<String, String> {
    let mut members: rustc_hash::FxHashMap<String, String> = rustc_hash::FxHashMap::default();
    for unit in units.iter().filter(|u| !u.is_chunk && !u.name.is_empty()) {
        let Some(parent) = unit.qualified_name.strip_suffix(unit.name.as_str()) else { continue };
        let parent = parent.trim_end_matches(['.', ':', '/', '#', '\\']);
        if parent.is_empty() {
            continue;
        }
        if !members.contains_key(parent) {
            members.insert(parent.to_string(), String::new());
        }
        let Some(lines) = members.get_mut(parent) else { continue };
        lines.push_str(unit.signature.lines().next().unwrap_or_default());
        lines.push('\n');
    }
    members
}

fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

pub fn text_hash(text: &str) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes()).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ken_core::Language;

    /// Files as `id:size in KiB`; each batch printed as its ids.
    fn check(files: &str, expect: expect_test::Expect) {
        let files: Vec<(i64, u64)> = files
            .split_whitespace()
            .map(|f| {
                let (id, kib) = f.split_once(':').unwrap();
                (id.parse().unwrap(), kib.parse::<u64>().unwrap() << 10)
            })
            .collect();
        let batches: Vec<String> = sync_batches(&files).iter().map(|b| format!("{b:?}")).collect();
        expect.assert_eq(&batches.join(" "));
    }

    #[test]
    fn batches_are_cut_by_bytes_and_by_count() {
        check("", expect_test::expect![""]);
        check("1:1 2:1 3:1", expect_test::expect!["[1, 2, 3]"]);
        // 4 MiB a batch: a file over it is a batch alone.
        check("1:3000 2:1000 3:100 4:5000 5:1", expect_test::expect!["[1, 2] [3] [4] [5]"]);
        // 256 files a batch, however small.
        let many: Vec<(i64, u64)> = (1..=300).map(|id| (id, 1024)).collect();
        assert_eq!(sync_batches(&many).iter().map(Vec::len).collect::<Vec<_>>(), [256, 44]);
    }

    /// A member's embedding text carries its holder's docstring: the first
    /// paragraph, cut at a word; a chunk's only when its class encloses it.
    #[test]
    fn members_are_embedded_with_their_holders_summary() {
        let unit = |is_chunk, class: Option<(String, u32, u32, bool)>, parent_doc: &str| UnitText {
            point_id: 0,
            file_id: 1,
            path: "src/task/join_set.rs".into(),
            language: Language::Rust,
            kind: SymbolKind::Method,
            is_chunk,
            symbol_id: Some(7),
            name: "poll_join_next".into(),
            qualified_name: "crate::task::join_set::JoinSet::poll_join_next".into(),
            local_path: "JoinSet::poll_join_next".into(),
            signature: "pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>>".into(),
            docstring: Some("Polls for one of the tasks in the set to complete.".into()),
            start_line: 486,
            end_line: 488,
            code: "{ self.inner.pop_notified(cx.waker()) }".into(),
            class,
            method: None,
            parent_doc: (!parent_doc.is_empty()).then(|| parent_doc.into()),
        };
        let long = format!("A collection of tasks spawned on a Tokio runtime. {}\n\nSecond paragraph.", "word ".repeat(70));
        let class = |encloses| Some(("JoinSet".to_string(), 480, 600, encloses));
        let texts = [
            embed_text(&unit(false, None, "A collection of tasks spawned on a Tokio runtime.\n\nA `JoinSet` can be used to await...")),
            embed_text(&unit(false, None, &long)),
            embed_text(&unit(false, None, "")),
            embed_text(&unit(true, class(true), "A collection of tasks spawned on a Tokio runtime.")),
            embed_text(&unit(true, class(false), "A collection of tasks spawned on a Tokio runtime.")),
        ];
        expect_test::expect![[r#"
            method crate::task::join_set::JoinSet::poll_join_next
            pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>>
            Polls for one of the tasks in the set to complete.
            A collection of tasks spawned on a Tokio runtime.
            { self.inner.pop_notified(cx.waker()) }
            ---
            method crate::task::join_set::JoinSet::poll_join_next
            pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>>
            Polls for one of the tasks in the set to complete.
            A collection of tasks spawned on a Tokio runtime. word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word
            { self.inner.pop_notified(cx.waker()) }
            ---
            method crate::task::join_set::JoinSet::poll_join_next
            pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>>
            Polls for one of the tasks in the set to complete.
            { self.inner.pop_notified(cx.waker()) }
            ---
            The following rust code is from the file src/task/join_set.rs, lines 486 to 488. It is inside the class `JoinSet` (lines 480 to 600). canonicalName: crate::task::join_set::JoinSet::poll_join_next
            A collection of tasks spawned on a Tokio runtime.
            { self.inner.pop_notified(cx.waker()) }
            ---
            The following rust code is from the file src/task/join_set.rs, lines 486 to 488. It is after the class `JoinSet` (lines 480 to 600). canonicalName: crate::task::join_set::JoinSet::poll_join_next
            { self.inner.pop_notified(cx.waker()) }"#]].assert_eq(&texts.join("\n---\n"));
    }
}

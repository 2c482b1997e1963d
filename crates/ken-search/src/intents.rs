//! The intent lane (MutaGReP): the index's intents, embedded with the
//! index's model into their own shard (`intents/`), and searched there. An
//! intent's point id is its row id; its payload is its symbol's, so the
//! same filters apply as in the dense lane.

use crate::SearchError;
use crate::shard::{PointFilter, PointPayload, SharedShard, VectorShard};
use crate::sync::{SyncError, text_hash};
use ken_core::Cancel;
use ken_embed::Embedder;
use ken_store::{IntentRow, Store, UnitText};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::time::Instant;

pub const INTENT_SHARD_DIR: &str = "intents";
/// `meta` key: the model and intents fingerprint the shard was written for.
const SHARD_META: &str = "intents_shard";
/// Intents a symbol has (ken-llm asks for five).
const INTENTS_PER_SYMBOL: usize = 5;

#[derive(Clone, Debug, Default, Serialize)]
pub struct IntentVectorSummary {
    /// Intents the shard holds after the run.
    pub intents: u64,
    /// Vectors computed by the model (the rest came from the embedding cache).
    pub embedded: u64,
    pub from_cache: u64,
    /// The shard was already current.
    pub unchanged: bool,
    pub seconds: f64,
}

/// Writes the vector of every intent into the intent shard, unless it
/// already holds exactly these intents for this model. The shard is
/// written whole (intents are few: five per symbol, and their vectors come
/// from the embedding cache on a rewrite); the fingerprint is recorded
/// after the flush, so a killed run writes it again next time.
pub fn sync_intent_vectors(
    store: &mut Store,
    shards: &SharedShard,
    embedder: &dyn Embedder,
    cancel: &Cancel,
    mut progress: impl FnMut(u64, u64),
) -> Result<IntentVectorSummary, SyncError> {
    let start = Instant::now();
    let model = embedder.model_id().to_string();
    let wanted = format!("{model}|{}|{}", store.intents_fingerprint()?, shards.location().describe());
    if store.meta(SHARD_META)?.as_deref() == Some(wanted.as_str()) {
        let intents = store.intent_counts()?.0;
        return Ok(IntentVectorSummary { intents, unchanged: true, ..IntentVectorSummary::default() });
    }
    let rows = store.all_intents()?;
    let mut summary = IntentVectorSummary { intents: rows.len() as u64, ..IntentVectorSummary::default() };
    store.set_meta(SHARD_META, "")?;
    shards.destroy()?;
    const BATCH: usize = 256;
    let total = rows.len() as u64;
    for (done, batch) in rows.chunks(BATCH).enumerate() {
        if cancel.is_cancelled() {
            return Ok(summary);
        }
        let hashes: Vec<[u8; 16]> = batch.iter().map(|r| text_hash(&r.text)).collect();
        let cached = store.cached_embeddings(&model, &hashes)?;
        let missing: Vec<&str> =
            batch.iter().zip(&hashes).filter(|(_, h)| !cached.contains_key(*h)).map(|(r, _)| r.text.as_str()).collect();
        let fresh = embedder.embed_documents(&missing)?;
        let fresh_rows: Vec<([u8; 16], &[f32])> =
            hashes.iter().filter(|h| !cached.contains_key(*h)).copied().zip(fresh.iter().map(Vec::as_slice)).collect();
        store.put_embeddings(&model, &fresh_rows)?;
        summary.embedded += fresh.len() as u64;
        summary.from_cache += (batch.len() - fresh.len()) as u64;
        let by_hash: FxHashMap<[u8; 16], &[f32]> = fresh_rows.iter().copied().collect();
        let points = batch
            .iter()
            .zip(&hashes)
            .map(|(row, hash)| {
                let vector = cached.get(hash).map(Vec::as_slice).or_else(|| by_hash.get(hash).copied()).unwrap_or_default().to_vec();
                (row.id, payload(row), vector)
            })
            .collect();
        let shard = shards.get(embedder.dim())?;
        shard.upsert(points)?;
        progress(((done + 1) * BATCH).min(rows.len()) as u64, total);
    }
    if !rows.is_empty() {
        let shard = shards.get(embedder.dim())?;
        shard.flush()?;
        shard.optimize()?;
    }
    shards.release();
    store.set_meta(SHARD_META, &wanted)?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// The model whose vectors the intent shard holds, once it holds every
/// intent; `None` before (or when the index has no intents).
pub fn intent_vectors_model(store: &Store) -> Result<Option<String>, ken_store::StoreError> {
    let meta = store.meta(SHARD_META)?.unwrap_or_default();
    Ok(meta.split_once('|').map(|(model, _)| model.to_string()).filter(|m| !m.is_empty()))
}

fn payload(row: &IntentRow) -> PointPayload<'_> {
    PointPayload {
        file_id: row.file_id,
        path: &row.path,
        language: row.language.name(),
        kind: row.kind.as_str(),
        is_chunk: false,
        name: &row.name,
        qualified_name: &row.qualified_name,
        text: "",
    }
}

/// A symbol the intent lane found, with its best-matching intent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntentMatch {
    /// The symbol's point id (as in the other lanes).
    pub point_id: i64,
    pub score: f32,
    pub intent: String,
}

/// The symbols whose intents are nearest to `vector`, best first, each
/// once (its best intent), at most `limit`.
pub fn search_intents(
    store: &Store,
    shard: &VectorShard,
    vector: Vec<f32>,
    limit: usize,
    filter: &PointFilter,
) -> Result<Vec<IntentMatch>, SearchError> {
    // Five intents a symbol: fetch enough that `limit` symbols remain.
    let found = shard.search_dense(vector, limit * INTENTS_PER_SYMBOL, filter)?;
    let ids: Vec<i64> = found.iter().map(|(id, _)| *id).collect();
    let rows: FxHashMap<i64, IntentRow> = store.intents_by_ids(&ids)?.into_iter().map(|r| (r.id, r)).collect();
    let mut out: Vec<IntentMatch> = Vec::new();
    for (id, score) in found {
        let Some(row) = rows.get(&id) else { continue };
        let point_id = UnitText::point_id(false, row.symbol_id);
        if out.iter().any(|m| m.point_id == point_id) {
            continue;
        }
        out.push(IntentMatch { point_id, score, intent: row.text.clone() });
        if out.len() == limit {
            break;
        }
    }
    Ok(out)
}

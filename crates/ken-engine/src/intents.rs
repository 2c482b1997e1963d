//! `ken index --intents` (MutaGReP §10): five first-person intents per
//! function, method and type, written by the language model, stored in
//! SQLite and embedded as their own lane.
//!
//! Idempotent and resumable: a symbol keeps its intents while its text is
//! unchanged; every answer is cached by (model, text hash), so a rebuilt or
//! copied index asks again only for new code; results are committed a few
//! at a time as they come, so a killed run keeps what it had. Calls run in
//! parallel up to the model's parallelism, each with retries.

use crate::{Engine, Error, ErrorKind};
use ken_core::{Cancel, Family, SymbolKind};
use ken_embed::Embedder;
use ken_llm::{ChatRequest, Llm, intents};
use ken_search::IntentVectorSummary;
use ken_store::{IntentSubject, Store};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What gets intents: the functions, methods and types of code files.
const KINDS: &[SymbolKind] = &[
    SymbolKind::Function,
    SymbolKind::Method,
    SymbolKind::Class,
    SymbolKind::Struct,
    SymbolKind::Interface,
    SymbolKind::Trait,
    SymbolKind::Enum,
];
/// Tries per symbol: the first greedy, the others sampled.
const ATTEMPTS: usize = 3;
/// Reasons kept in the report for symbols that got no intents.
const FAILURES_SHOWN: usize = 5;

/// Where an intents run is, for a progress bar: symbols the model has
/// written intents for, then intents whose vectors are in the shard.
#[derive(Clone, Copy, Debug)]
pub enum IntentProgress {
    Writing { done: u64, total: u64 },
    Embedding { done: u64, total: u64 },
}

/// What an intents run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IntentReport {
    /// The language model that wrote them.
    pub model: String,
    /// Functions, methods and types that get intents.
    pub symbols: u64,
    /// Left out: in tests, or not code.
    pub skipped: u64,
    /// Already had intents for their current text.
    pub current: u64,
    /// Taken from the cache of earlier answers.
    pub from_cache: u64,
    /// Written by the model in this run.
    pub generated: u64,
    /// Got none after every try (their reasons, the first few, below).
    pub failed: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<String>,
    /// Intents the index holds, and for how many symbols.
    pub intents: u64,
    pub with_intents: u64,
    /// Writing their vectors (absent when nothing embeds them in this run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vectors: Option<IntentVectorSummary>,
    pub seconds: f64,
}

/// The cache key of a symbol's intents: the prompt's version and what the model reads.
fn subject_hash(s: &IntentSubject) -> Vec<u8> {
    let key = format!(
        "{}\0{}\0{}\0{}",
        intents::PROMPT_VERSION,
        s.kind.as_str(),
        s.qualified_name,
        intents::head(&s.code, intents::MAX_CODE_CHARS)
    );
    xxhash_rust::xxh3::xxh3_128(key.as_bytes()).to_le_bytes().to_vec()
}

/// One symbol's intents, tried [`ATTEMPTS`] times, and whether they came
/// from the disk cache of model calls (which outlives the index).
fn generate(llm: &dyn Llm, s: &IntentSubject) -> Result<(Vec<String>, bool), String> {
    let mut last = String::new();
    for attempt in 0..ATTEMPTS {
        let mut request: ChatRequest = intents::request(s.kind.as_str(), &s.qualified_name, &s.path, &s.code);
        // A greedy answer that failed fails again: sample the retries.
        request.temperature = if attempt == 0 { 0.0 } else { 0.5 };
        match llm.chat(&request, &mut |_| {}).and_then(|c| Ok((intents::parse(&c)?, c.cached))) {
            Ok(found) => return Ok(found),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

impl Engine {
    /// Gives every function, method and type without intents for its
    /// current text five of them, then (with `embedder`) writes their vectors.
    pub(crate) fn intent_phase(
        &self,
        store: &mut Store,
        embedder: Option<&dyn Embedder>,
        cancel: &Cancel,
        progress: &(dyn Fn(IntentProgress) + Sync),
    ) -> Result<IntentReport, Error> {
        let started = Instant::now();
        let llm = self.llm().map_err(|why| {
            Error::new(ErrorKind::ModelUnavailable, format!("the index is up to date, but intents need a language model: {why}"))
        })?;
        let model = llm.model_id().to_string();
        let mut report = IntentReport { model: model.clone(), ..IntentReport::default() };
        let mut todo: Vec<(IntentSubject, Vec<u8>)> = Vec::new();
        for subject in store.intent_subjects(KINDS)? {
            if subject.language.family() != Family::Code || subject.is_test || ken_search::is_test_path(&subject.path) {
                report.skipped += 1;
                continue;
            }
            report.symbols += 1;
            let hash = subject_hash(&subject);
            if subject.intents_hash.as_deref() == Some(hash.as_slice()) {
                report.current += 1;
            } else {
                todo.push((subject, hash));
            }
        }
        // Answers given before cost nothing.
        let mut ask = Vec::new();
        let mut cached = Vec::new();
        for (subject, hash) in todo {
            match store.cached_intents(&model, &hash)? {
                Some(found) => cached.push((subject.symbol_id, hash, found)),
                None => ask.push((subject, hash)),
            }
        }
        report.from_cache = cached.len() as u64;
        for batch in cached.chunks(512) {
            store.put_intents(&model, batch)?;
        }
        let total = ask.len() as u64;
        progress(IntentProgress::Writing { done: 0, total });
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let workers = llm.parallelism().clamp(1, ask.len().max(1));
        let written = std::thread::scope(|scope| -> Result<(), Error> {
            let (sender, results) = std::sync::mpsc::channel::<(usize, Result<(Vec<String>, bool), String>)>();
            for _ in 0..workers {
                let sender = sender.clone();
                let (ask, next, stop, llm) = (&ask, &next, &stop, &*llm);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) && !cancel.is_cancelled() {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((subject, _)) = ask.get(i) else { break };
                        if sender.send((i, generate(llm, subject))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            // Committed a few at a time: a killed run keeps what it wrote.
            let mut batch = Vec::new();
            let mut last_commit = Instant::now();
            let mut commit = |batch: &mut Vec<(i64, Vec<u8>, Vec<String>)>| -> Result<(), Error> {
                let result = store.put_intents(&model, batch).map_err(Error::from);
                batch.clear();
                if result.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
                result
            };
            for (done, (i, result)) in (1..).zip(results) {
                let (subject, hash) = &ask[i];
                match result {
                    Ok((found, cached)) => {
                        if cached {
                            report.from_cache += 1;
                        } else {
                            report.generated += 1;
                        }
                        batch.push((subject.symbol_id, hash.clone(), found));
                    }
                    Err(why) => {
                        report.failed += 1;
                        if report.failures.len() < FAILURES_SHOWN {
                            report.failures.push(format!("{} ({}): {why}", subject.qualified_name, subject.path));
                        }
                    }
                }
                if batch.len() >= 16 || last_commit.elapsed() > Duration::from_secs(5) {
                    commit(&mut batch)?;
                    last_commit = Instant::now();
                }
                progress(IntentProgress::Writing { done, total });
            }
            commit(&mut batch)
        });
        written?;
        (report.intents, report.with_intents) = store.intent_counts()?;
        if let Some(embedder) = embedder
            && !cancel.is_cancelled()
        {
            report.vectors = Some(self.intent_vectors(store, embedder, cancel, progress)?);
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// Brings the intent shard up to date with the intents table (nothing
    /// to do when it is).
    pub(crate) fn intent_vectors(
        &self,
        store: &mut Store,
        embedder: &dyn Embedder,
        cancel: &Cancel,
        progress: &(dyn Fn(IntentProgress) + Sync),
    ) -> Result<IntentVectorSummary, Error> {
        Ok(ken_search::sync_intent_vectors(store, &self.intent_shards, embedder, cancel, |done, total| {
            progress(IntentProgress::Embedding { done, total })
        })?)
    }
}

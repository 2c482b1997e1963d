//! `Engine::watch`: keeps the index fresh while files change (`ken watch`,
//! `ken serve --watch`).
//!
//! File events are only triggers: each pass is an ordinary incremental
//! index run, which compares the whole tree with the index. So a branch
//! switch, a mass rename or a deleted directory is whatever the tree is
//! afterwards, and an event lost (an inotify overflow, a directory created
//! between two watches) costs nothing once any later event, or the next
//! pass, comes. A pass first makes the change searchable (names, BM25, the
//! graph and the static lane), then embeds it with the model; an event
//! during the embedding stops it after its batch, and it resumes after the
//! next lexical pass.

use crate::{Engine, Error, ErrorKind, IndexReport, IndexRequest};
use ken_core::Cancel;
use notify::{EventKind, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Points per transformer batch while watching (MiniLM int8 embeds about
/// 15 to 50 points a second on 2 cores, by their length).
const WATCH_MODEL_BATCH: usize = 8;

/// How a watch runs.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Events this close together make one pass.
    pub quiet: Duration,
    /// The longest a pass waits for the events to stop.
    pub max_wait: Duration,
    /// Embed changes with the model after they are searchable.
    pub embed: bool,
    pub include_vendored: bool,
}

impl Default for WatchOptions {
    fn default() -> WatchOptions {
        WatchOptions { quiet: Duration::from_millis(50), max_wait: Duration::from_millis(500), embed: true, include_vendored: false }
    }
}

/// What a watch reports as it goes.
#[derive(Debug)]
pub enum WatchEvent {
    /// The watches are set; what changes from now on is caught.
    Watching { directories: usize },
    /// A pass made the tree's changes searchable. `seconds` runs from the
    /// first event of the pass (or the start, for the first pass).
    Searchable { report: Box<IndexReport>, seconds: f64, events: usize },
    /// The model embedded what the last passes left without its vector.
    Embedded { report: Box<IndexReport> },
    /// A pass failed (the index was busy, a disk error); the next event retries.
    Failed { error: Error },
}

/// The watcher's side: events in, the running embedding stopped.
struct Triggers {
    root: PathBuf,
    index_dir: PathBuf,
    embedding: Mutex<Cancel>,
}

impl Triggers {
    /// Whether an event can change what the index holds.
    fn relevant(&self, event: &notify::Event) -> bool {
        if matches!(event.kind, EventKind::Access(_)) {
            return false;
        }
        // An overflow names no path: rescan.
        if event.need_rescan() || event.paths.is_empty() {
            return true;
        }
        event.paths.iter().any(|p| {
            let Ok(rel) = p.strip_prefix(&self.root) else { return false };
            !p.starts_with(&self.index_dir) && !rel.components().any(|c| c.as_os_str() == ".git")
        })
    }
}

impl Engine {
    /// Watches the repository and keeps its index fresh until `stop` is
    /// cancelled: one pass at the start, then one per burst of changes.
    /// Blocks; `report` hears every pass. Cancelling `stop` also stops the
    /// pass under way after its batch (an embedding can take minutes).
    pub fn watch(&self, options: &WatchOptions, stop: &Cancel, report: &(dyn Fn(WatchEvent) + Sync)) -> Result<(), Error> {
        let root = self.root.canonicalize().unwrap_or_else(|_| self.root.clone());
        let index_dir = self.index_dir.canonicalize().unwrap_or_else(|_| self.index_dir.clone());
        let triggers = Arc::new(Triggers { root: root.clone(), index_dir: index_dir.clone(), embedding: Mutex::default() });
        let (tx, rx) = mpsc::channel::<Instant>();
        let seen = Arc::clone(&triggers);
        let (dirs_tx, dirs_rx) = mpsc::channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let relevant = match &event {
                Ok(e) => seen.relevant(e),
                // The watcher lost track (a queue overflow): rescan.
                Err(_) => true,
            };
            if !relevant {
                return;
            }
            // A directory made, or moved in (its old watches report the old
            // path, if any): watch it and what it holds.
            if let Ok(e) = &event
                && matches!(e.kind, EventKind::Create(_) | EventKind::Modify(notify::event::ModifyKind::Name(_)))
            {
                for p in e.paths.iter().filter(|p| p.is_dir()) {
                    let _ = dirs_tx.send(p.clone());
                }
            }
            seen.embedding.lock().unwrap_or_else(|e| e.into_inner()).cancel();
            let _ = tx.send(Instant::now());
        })
        .map_err(|e| Error::internal(format!("cannot watch files: {e}")))?;

        let mut watched = std::collections::HashSet::new();
        let vendored = options.include_vendored;
        watch_directories(&mut watcher, &mut watched, &root, &index_dir, vendored)?;
        report(WatchEvent::Watching { directories: watched.len() });

        let mut first_event = Some(Instant::now());
        let mut events = 0usize;
        let mut unembedded = options.embed;
        while !stop.is_cancelled() {
            if let Some(first) = first_event.take() {
                // Let the burst settle: until `quiet` passes without an event, at most `max_wait`.
                while first.elapsed() < options.max_wait {
                    match rx.recv_timeout(options.quiet) {
                        Ok(_) => events += 1,
                        Err(_) => break,
                    }
                }
                while let Ok(dir) = dirs_rx.try_recv() {
                    watch_directories(&mut watcher, &mut watched, &dir, &index_dir, vendored)?;
                }
                match self.index(&self.watch_request(options, false, stop.child()), &|_| {}) {
                    Ok(done) => {
                        let seconds = first.elapsed().as_secs_f64();
                        report(WatchEvent::Searchable { report: Box::new(done), seconds, events: std::mem::take(&mut events) });
                        unembedded = options.embed;
                    }
                    Err(_) if stop.is_cancelled() => {}
                    Err(error) => report(WatchEvent::Failed { error }),
                }
                continue;
            }
            if unembedded {
                // A change waiting goes first.
                if let Ok(at) = rx.try_recv() {
                    first_event = Some(at);
                    events = 1;
                    continue;
                }
                // Stopped by the next event, or with the watch.
                let cancel = stop.child();
                *triggers.embedding.lock().unwrap_or_else(|e| e.into_inner()) = cancel.clone();
                let request = self.watch_request(options, true, cancel);
                match self.index(&request, &|_| {}) {
                    Ok(done) => {
                        unembedded = false;
                        if done.vectors.embed.as_ref().is_some_and(|e| e.embedded > 0) {
                            report(WatchEvent::Embedded { report: Box::new(done) });
                        }
                    }
                    // A change came: it is indexed first, then this resumes.
                    Err(e) if e.kind == ErrorKind::Cancelled => {}
                    Err(error) => {
                        unembedded = false;
                        report(WatchEvent::Failed { error });
                    }
                }
                continue;
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(at) => {
                    first_event = Some(at);
                    events = 1;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(Error::internal("the file watcher stopped")),
            }
        }
        Ok(())
    }

    /// A lexical pass (mining, the graph, points with their static vectors),
    /// or the model's embedding of what lacks its vector.
    fn watch_request(&self, options: &WatchOptions, embedding: bool, cancel: Cancel) -> IndexRequest {
        let mut index = ken_index::IndexOptions::new(self.root.clone(), self.index_dir.clone());
        index.include_vendored = options.include_vendored;
        index.cancel = cancel;
        IndexRequest {
            options: index,
            embed: options.embed,
            model_vectors: embedding,
            embed_only: embedding,
            // A change waits for the batch under way: keep it under a second on 2 cores.
            model_batch: Some(WATCH_MODEL_BATCH),
            ..IndexRequest::default()
        }
    }
}

/// Watches each directory an index run walks under `under`, not ignored
/// trees (target/, node_modules/): they would cost watches and wake the
/// watcher for nothing.
fn watch_directories(
    watcher: &mut notify::RecommendedWatcher,
    watched: &mut std::collections::HashSet<PathBuf>,
    under: &Path,
    index_dir: &Path,
    include_vendored: bool,
) -> Result<(), Error> {
    // A directory deleted and made again (a branch switch) needs its watch
    // again, so one already seen is watched anew.
    for dir in ken_index::walked_directories(under, index_dir, include_vendored) {
        match watcher.watch(&dir, RecursiveMode::NonRecursive) {
            Ok(()) => {
                watched.insert(dir);
            }
            // Gone already, or unreadable: the next pass says so.
            Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound | notify::ErrorKind::Io(_)) => {}
            Err(e) => return Err(Error::internal(format!("cannot watch {}: {e}", dir.display()))),
        }
    }
    Ok(())
}

//! The bridge: picks a server per language, keeps it alive, guards it with
//! a circuit breaker, bounds and caches requests, and turns LSP answers
//! into Kenning's coordinates.
//!
//! - `mod.rs`: the public handle, the server slots and their state.
//! - `lifecycle.rs`: choosing a server, admission, the circuit breaker, start-up.
//! - `requests.rs`: running a request through the cache, and converting answers.

use crate::config::{LspConfig, ServerSpec, find_command, language_id};
use crate::rpc::{self, CONTENT_MODIFIED, CallError, Conn, METHOD_NOT_FOUND, REQUEST_CANCELLED, lock};
use crate::text::{Encoding, anchor, byte_to_units, nth_line, path_to_uri, units_to_byte, uri_to_path};
use crate::{Answer, CallSite, Location, LspError, ServerStatus, SymbolPosition};
use rustc_hash::FxHashMap;
use serde_json::{Value, json};
use std::any::Any;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::Semaphore;
use tracing::{debug, warn};

mod lifecycle;
mod requests;

use requests::{Files, millis, read_source};

/// Quiet time after which a server that reports no progress counts as loaded.
const QUIET: Duration = Duration::from_millis(300);
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
const MAX_CACHE_ENTRIES: usize = 10_000;

/// A handle to the language servers of one project root. Cheap to clone;
/// servers are shared by all clones and stop when the last one is dropped
/// (or at [`LspBridge::shutdown`]).
#[derive(Clone)]
pub struct LspBridge {
    inner: Arc<Inner>,
}

struct Inner {
    root: PathBuf,
    /// What servers are told and asked about: some resolve symlinks in
    /// what they answer, so we give them resolved paths to begin with.
    canonical_root: PathBuf,
    config: LspConfig,
    slots: Vec<Slot>,
    permits: Semaphore,
    cache: Mutex<FxHashMap<CacheKey, CacheEntry>>,
}

struct Slot {
    spec: ServerSpec,
    /// `None`: the command is not on `PATH`.
    program: Option<PathBuf>,
    state: Mutex<SlotState>,
    /// Serializes (re)starts.
    start: tokio::sync::Mutex<()>,
    requests: AtomicU64,
    failures: AtomicU64,
    timeouts: AtomicU64,
    cache_hits: AtomicU64,
}

#[derive(Default)]
struct SlotState {
    phase: Phase,
    conn: Option<Arc<Conn>>,
    /// Bumped per process, so news from a dead process is ignored.
    generation: u64,
    restarts: u32,
    /// Crashes since the last successful request.
    crashes: u32,
    failures_in_row: u32,
    /// Breaker open (fail fast) until then; past it, half-open.
    open_until: Option<Instant>,
    /// Half-open: the one trial request is in flight.
    trial: Option<u64>,
    trials: u64,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    NotStarted,
    Starting,
    Ready,
    Crashed,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Op {
    References,
    IncomingCalls,
    Implementations,
    Definition,
    Hover,
}

#[derive(PartialEq, Eq, Hash)]
struct CacheKey {
    op: Op,
    path: String,
    line: u32,
    col: u32,
}

struct CacheEntry {
    mtime: Option<SystemTime>,
    stored: Instant,
    server: String,
    fallback: Option<String>,
    value: Arc<dyn Any + Send + Sync>,
}

/// A failed request; `code` is the JSON-RPC error code when the server answered one.
struct Failed {
    code: Option<i64>,
    error: LspError,
}

impl From<LspError> for Failed {
    fn from(error: LspError) -> Failed {
        Failed { code: None, error }
    }
}

/// What one operation needs to talk to its server.
struct Ctx<'a> {
    slot: &'a Slot,
    conn: Arc<Conn>,
    uri: String,
    position: Value,
    files: Files<'a>,
}

impl LspBridge {
    pub fn new(root: &Path, config: LspConfig) -> LspBridge {
        let root = if root.is_absolute() {
            root.to_owned()
        } else {
            std::env::current_dir().map(|d| d.join(root)).unwrap_or_else(|_| root.to_owned())
        };
        let canonical_root = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        let slots = config
            .servers
            .iter()
            .map(|spec| Slot {
                spec: spec.clone(),
                program: find_command(&spec.command),
                state: Mutex::new(SlotState::default()),
                start: tokio::sync::Mutex::new(()),
                requests: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                timeouts: AtomicU64::new(0),
                cache_hits: AtomicU64::new(0),
            })
            .collect();
        let permits = Semaphore::new(config.max_in_flight.max(1));
        LspBridge { inner: Arc::new(Inner { root, canonical_root, config, slots, permits, cache: Mutex::new(FxHashMap::default()) }) }
    }

    /// The server that would serve `language`; `None` when none is installed.
    pub fn server_for(&self, language: &str) -> Option<String> {
        let idx = self.inner.resolve(language).ok()?;
        Some(self.inner.slots[idx].spec.name.clone())
    }

    /// Starts the server for `language`, opens `path` and waits until the
    /// server has finished loading, all within `startup_timeout`. Without
    /// this, the first answers of gopls, tsserver and pyright may be empty.
    pub async fn warm(&self, language: &str, path: &str) -> Result<(), LspError> {
        let inner = &self.inner;
        let idx = inner.resolve(language)?;
        let slot = &inner.slots[idx];
        let budget = inner.config.startup_timeout;
        let warming = async {
            let _admission = inner.admit(slot)?;
            let conn = inner.ensure_conn(idx).await.inspect_err(|e| inner.failed(slot, e))?;
            let abs = inner.canonical_root.join(path);
            let (text, mtime) = read_source(&abs, path, &inner.root).await?;
            conn.sync_doc(&abs, &language_id(language, &abs), &text, mtime).await;
            loop {
                if conn.shared().is_dead() {
                    let detail = conn.shared().dead_detail();
                    return Err(LspError::Crashed { server: slot.spec.name.clone(), detail });
                }
                if conn.shared().idle_for().is_some_and(|idle| idle >= QUIET) {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        match tokio::time::timeout(budget, warming).await {
            Ok(result) => result,
            Err(_) => Err(LspError::Timeout { server: slot.spec.name.clone(), method: "warm".to_owned(), ms: millis(budget) }),
        }
    }

    /// Where the symbol is used (its declaration excluded).
    pub async fn references(&self, at: &SymbolPosition) -> Result<Answer<Vec<Location>>, LspError> {
        self.inner.run(Op::References, at).await
    }

    /// Who calls the symbol, by call hierarchy; when the server has none
    /// (no capability, MethodNotFound, or an empty prepare), by references
    /// grouped under their enclosing function, saying so in `fallback`.
    pub async fn incoming_calls(&self, at: &SymbolPosition) -> Result<Answer<Vec<CallSite>>, LspError> {
        self.inner.run(Op::IncomingCalls, at).await
    }

    /// What implements the symbol: a class's subclasses, an interface's
    /// implementing types, a method's overrides (`textDocument/implementation`;
    /// directly or transitively, as the server sees it). `Unsupported` when
    /// the server has no implementation provider (pyright, pylsp).
    pub async fn implementations(&self, at: &SymbolPosition) -> Result<Answer<Vec<Location>>, LspError> {
        self.inner.run(Op::Implementations, at).await
    }

    /// Where the symbol under the position is defined.
    pub async fn definition(&self, at: &SymbolPosition) -> Result<Answer<Vec<Location>>, LspError> {
        self.inner.run(Op::Definition, at).await
    }

    /// The server's hover text (usually signature and docs, often markdown).
    pub async fn hover(&self, at: &SymbolPosition) -> Result<Answer<Option<String>>, LspError> {
        self.inner.run(Op::Hover, at).await
    }

    /// Every configured server, in configuration order.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.inner
            .slots
            .iter()
            .map(|slot| {
                let (state, restarts) = {
                    let st = lock(&slot.state);
                    let state = if slot.program.is_none() {
                        "missing"
                    } else if st.open_until.is_some() {
                        "breaker_open"
                    } else {
                        match st.phase {
                            Phase::NotStarted => "not_started",
                            Phase::Starting => "starting",
                            Phase::Ready => "ready",
                            Phase::Crashed => "crashed",
                        }
                    };
                    (state, st.restarts)
                };
                ServerStatus {
                    name: slot.spec.name.clone(),
                    languages: slot.spec.languages.clone(),
                    state: state.to_owned(),
                    restarts,
                    requests: slot.requests.load(Ordering::Relaxed),
                    failures: slot.failures.load(Ordering::Relaxed),
                    timeouts: slot.timeouts.load(Ordering::Relaxed),
                    cache_hits: slot.cache_hits.load(Ordering::Relaxed),
                }
            })
            .collect()
    }

    /// Sends `shutdown` and `exit` to every running server and kills those
    /// still alive after a second. Later requests start servers again.
    pub async fn shutdown(&self) {
        let mut closing = tokio::task::JoinSet::new();
        for slot in &self.inner.slots {
            let conn = {
                let mut st = lock(&slot.state);
                st.generation += 1;
                st.phase = Phase::NotStarted;
                st.conn.take()
            };
            if let Some(conn) = conn {
                closing.spawn(async move { conn.proc.shutdown(SHUTDOWN_GRACE).await });
            }
        }
        while closing.join_next().await.is_some() {}
    }
}

/// Gate of one operation through the breaker; ends a trial left undecided.
struct Admission<'a> {
    slot: &'a Slot,
    trial: Option<u64>,
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.trial {
            let mut st = lock(&self.slot.state);
            if st.trial == Some(id) {
                st.trial = None;
            }
        }
    }
}

/// Resets a start abandoned midway (its caller was cancelled).
struct Starting<'a> {
    slot: &'a Slot,
    generation: u64,
    done: bool,
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        if !self.done {
            let mut st = lock(&self.slot.state);
            if st.generation == self.generation && st.phase == Phase::Starting {
                st.phase = Phase::NotStarted;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bridge and its futures cross threads (checked when this compiles),
    /// and making a request's future starts nothing: servers start when a
    /// request runs, and nothing was sent or counted.
    #[test]
    fn futures_are_send_and_lazy() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        fn send<T: Send>(_: T) {}
        let bridge = LspBridge::new(Path::new("/"), LspConfig::default());
        send_sync(&bridge);
        let at = SymbolPosition::new("a.py", "python", 1, 1, "f");
        send(bridge.references(&at));
        send(bridge.incoming_calls(&at));
        send(bridge.definition(&at));
        send(bridge.hover(&at));
        send(bridge.warm("python", "a.py"));
        send(bridge.shutdown());
        let status = bridge.status();
        assert!(!status.is_empty(), "the default servers are listed");
        for server in status {
            assert!(matches!(server.state.as_str(), "not_started" | "missing"), "{} is {}", server.name, server.state);
            assert_eq!((server.requests, server.failures, server.cache_hits), (0, 0, 0), "{}", server.name);
        }
    }
}

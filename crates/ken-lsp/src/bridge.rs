//! The bridge: picks a server per language, keeps it alive, guards it with
//! a circuit breaker, bounds and caches requests, and turns LSP answers
//! into Kenning's coordinates.

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

impl Inner {
    fn resolve(&self, language: &str) -> Result<usize, LspError> {
        let mut tried = Vec::new();
        for (idx, slot) in self.slots.iter().enumerate() {
            if slot.spec.serves(language) {
                if slot.program.is_some() {
                    return Ok(idx);
                }
                tried.push(slot.spec.command.clone());
            }
        }
        Err(LspError::NoServer { language: language.to_owned(), tried })
    }

    fn admit<'a>(&self, slot: &'a Slot) -> Result<Admission<'a>, LspError> {
        let mut st = lock(&slot.state);
        let Some(until) = st.open_until else {
            return Ok(Admission { slot, trial: None });
        };
        let now = Instant::now();
        if now < until || st.trial.is_some() {
            let left = until.saturating_duration_since(now);
            return Err(LspError::BreakerOpen {
                server: slot.spec.name.clone(),
                retry_in_secs: left.as_secs() + u64::from(left.subsec_nanos() > 0),
            });
        }
        st.trials += 1;
        let id = st.trials;
        st.trial = Some(id);
        debug!(server = %slot.spec.name, "circuit breaker half-open: trial request");
        Ok(Admission { slot, trial: Some(id) })
    }

    fn succeeded(&self, slot: &Slot) {
        let mut st = lock(&slot.state);
        if st.open_until.is_some() {
            debug!(server = %slot.spec.name, "circuit breaker closed");
        }
        st.failures_in_row = 0;
        st.crashes = 0;
        st.open_until = None;
        st.trial = None;
    }

    /// Counts a failure; opens the breaker after too many in a row or a failed trial.
    fn failed(&self, slot: &Slot, error: &LspError) {
        slot.failures.fetch_add(1, Ordering::Relaxed);
        if matches!(error, LspError::Timeout { .. }) {
            slot.timeouts.fetch_add(1, Ordering::Relaxed);
        }
        if matches!(error, LspError::Io(_) | LspError::NoServer { .. } | LspError::BreakerOpen { .. }) {
            return;
        }
        let mut st = lock(&slot.state);
        st.failures_in_row += 1;
        if st.trial.is_some() || st.failures_in_row >= self.config.breaker_threshold {
            self.open_breaker(slot, &mut st);
        }
    }

    fn open_breaker(&self, slot: &Slot, st: &mut SlotState) {
        warn!(
            server = %slot.spec.name,
            "circuit breaker open for {} s after {} failures in a row, {} crashes",
            self.config.breaker_cooldown.as_secs_f64(),
            st.failures_in_row,
            st.crashes,
        );
        st.open_until = Some(Instant::now() + self.config.breaker_cooldown);
        st.trial = None;
    }

    /// The process of `generation` died (or never came up).
    fn crashed(&self, idx: usize, generation: u64) {
        let slot = &self.slots[idx];
        let dead = {
            let mut st = lock(&slot.state);
            if st.generation != generation {
                return;
            }
            st.phase = Phase::Crashed;
            st.crashes += 1;
            if st.crashes >= self.config.max_restarts {
                self.open_breaker(slot, &mut st);
            }
            st.conn.take()
        };
        drop(dead);
    }

    fn live_conn(slot: &Slot) -> Option<Arc<Conn>> {
        let st = lock(&slot.state);
        st.conn.as_ref().filter(|c| !c.shared().is_dead()).cloned()
    }

    /// The running server of slot `idx`, started (or restarted) if needed.
    async fn ensure_conn(self: &Arc<Self>, idx: usize) -> Result<Arc<Conn>, LspError> {
        let slot = &self.slots[idx];
        if let Some(conn) = Self::live_conn(slot) {
            return Ok(conn);
        }
        let _serial = slot.start.lock().await;
        if let Some(conn) = Self::live_conn(slot) {
            return Ok(conn);
        }
        let server = slot.spec.name.clone();
        let Some(program) = slot.program.clone() else {
            return Err(LspError::NoServer { language: slot.spec.languages.join("/"), tried: vec![slot.spec.command.clone()] });
        };
        let generation = {
            let mut st = lock(&slot.state);
            st.generation += 1;
            if st.phase == Phase::Crashed {
                st.restarts += 1;
            }
            st.phase = Phase::Starting;
            st.conn = None;
            st.generation
        };
        let mut starting = Starting { slot, generation, done: false };
        let weak: Weak<Inner> = Arc::downgrade(self);
        let on_dead: rpc::OnDead = Box::new(move |_detail| {
            if let Some(inner) = weak.upgrade() {
                inner.crashed(idx, generation);
            }
        });
        debug!(%server, "starting {}", program.display());
        let proc = match rpc::spawn(&slot.spec, &program, &self.canonical_root, on_dead) {
            Ok(proc) => proc,
            Err(e) => {
                starting.done = true;
                self.crashed(idx, generation);
                return Err(LspError::Crashed { server, detail: format!("could not start `{}`: {e}", program.display()) });
            }
        };
        let budget = self.config.startup_timeout;
        let result = tokio::time::timeout(budget, proc.initialize(&slot.spec)).await;
        starting.done = true;
        let error = match result {
            Ok(Ok((encoding, caps))) => {
                debug!(%server, ?encoding, "initialized");
                let conn = Arc::new(Conn::new(proc, encoding, caps));
                let mut st = lock(&slot.state);
                if st.generation == generation && !conn.shared().is_dead() {
                    st.conn = Some(conn.clone());
                    st.phase = Phase::Ready;
                }
                return Ok(conn);
            }
            // Already counted by the death notice.
            Ok(Err(CallError::Crashed(detail))) => {
                return Err(LspError::Crashed { server, detail });
            }
            Ok(Err(CallError::Rpc { code, message })) => {
                LspError::Server { server, method: "initialize".to_owned(), detail: format!("{message} (code {code})") }
            }
            Err(_) => LspError::Timeout { server, method: "initialize".to_owned(), ms: millis(budget) },
        };
        proc.kill();
        self.crashed(idx, generation);
        Err(error)
    }

    async fn run<T: Clone + Send + Sync + 'static>(self: &Arc<Self>, op: Op, at: &SymbolPosition) -> Result<Answer<T>, LspError> {
        let idx = self.resolve(&at.language)?;
        let slot = &self.slots[idx];
        let abs = self.canonical_root.join(&at.path);
        let key = CacheKey { op, path: at.path.clone(), line: at.line, col: at.col };
        let mtime = tokio::fs::metadata(&abs).await.ok().and_then(|m| m.modified().ok());
        if let Some(hit) = self.cache_get::<T>(&key, mtime) {
            slot.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit);
        }
        let (text, mtime) = read_source(&abs, &at.path, &self.root).await?;

        let admission = self.admit(slot)?;
        let conn = self.ensure_conn(idx).await.inspect_err(|e| self.failed(slot, e))?;
        conn.sync_doc(&abs, &language_id(&at.language, &abs), &text, mtime).await;
        let (line0, byte) = anchor(&text, at.line, at.col, &at.name);
        let character = nth_line(&text, line0).map_or(byte as u32, |l| byte_to_units(l, byte, conn.encoding));
        let files = Files { inner: self, encoding: conn.encoding, texts: FxHashMap::default() };
        let mut ctx = Ctx { slot, uri: path_to_uri(&abs), position: json!({ "line": line0, "character": character }), conn, files };
        ctx.files.texts.insert(abs.clone(), Some(text));

        let (value, fallback): (Arc<dyn Any + Send + Sync>, Option<String>) = match op {
            Op::References => (Arc::new(self.references(&mut ctx).await?), None),
            Op::Definition => (Arc::new(self.definition(&mut ctx).await?), None),
            Op::Hover => (Arc::new(self.hover(&mut ctx).await?), None),
            Op::IncomingCalls => {
                let (calls, fallback) = self.incoming_calls(&mut ctx, at).await?;
                (Arc::new(calls), fallback)
            }
        };
        drop(admission);
        let server = slot.spec.name.clone();
        let Some(typed) = value.downcast_ref::<T>().cloned() else {
            return Err(LspError::Io(format!("internal error: {op:?} produced an unexpected type")));
        };
        self.cache_put(key, CacheEntry { mtime, stored: Instant::now(), server: server.clone(), fallback: fallback.clone(), value });
        Ok(Answer { value: typed, server, cached: false, fallback })
    }

    fn cache_get<T: Clone + 'static>(&self, key: &CacheKey, mtime: Option<SystemTime>) -> Option<Answer<T>> {
        let cache = lock(&self.cache);
        let entry = cache.get(key)?;
        if entry.mtime != mtime || mtime.is_none() || entry.stored.elapsed() >= self.config.cache_ttl {
            return None;
        }
        Some(Answer {
            value: entry.value.downcast_ref::<T>()?.clone(),
            server: entry.server.clone(),
            cached: true,
            fallback: entry.fallback.clone(),
        })
    }

    fn cache_put(&self, key: CacheKey, entry: CacheEntry) {
        let mut cache = lock(&self.cache);
        if cache.len() >= MAX_CACHE_ENTRIES {
            let ttl = self.config.cache_ttl;
            cache.retain(|_, e| e.stored.elapsed() < ttl);
            if cache.len() >= MAX_CACHE_ENTRIES {
                cache.clear();
            }
        }
        cache.insert(key, entry);
    }

    /// One request: a permit, the send, the answer, all within `request_timeout`.
    async fn request(&self, ctx: &Ctx<'_>, method: &str, params: Value) -> Result<Value, Failed> {
        let slot = ctx.slot;
        let server = &slot.spec.name;
        let budget = self.config.request_timeout;
        let deadline = tokio::time::Instant::now() + budget;
        let timeout = || LspError::Timeout { server: server.clone(), method: method.to_owned(), ms: millis(budget) };
        slot.requests.fetch_add(1, Ordering::Relaxed);
        let result = async {
            let Ok(permit) = tokio::time::timeout_at(deadline, self.permits.acquire()).await else {
                return Err(Failed::from(timeout()));
            };
            let shared = ctx.conn.shared();
            let (id, rx) = shared.start_request(method, params).map_err(|e| self.call_error(server, method, e))?;
            let reply = tokio::time::timeout_at(deadline, rx).await;
            drop(permit);
            match reply {
                Err(_) => {
                    shared.cancel(id);
                    Err(Failed::from(timeout()))
                }
                Ok(Err(_)) => Err(self.call_error(server, method, shared.dead_error())),
                Ok(Ok(reply)) => reply.map_err(|e| self.call_error(server, method, e)),
            }
        }
        .await;
        match &result {
            Ok(_) => self.succeeded(slot),
            // "Not supported" is an answer, and callers fall back on it.
            Err(Failed { code: Some(METHOD_NOT_FOUND), error }) => debug!(%server, "{error}"),
            // "Try again" is a healthy server's answer: no breaker.
            Err(Failed { code: Some(CONTENT_MODIFIED | REQUEST_CANCELLED), error }) => {
                slot.failures.fetch_add(1, Ordering::Relaxed);
                debug!(%server, "{error}");
            }
            Err(Failed { error, .. }) => self.failed(slot, error),
        }
        result
    }

    fn call_error(&self, server: &str, method: &str, e: CallError) -> Failed {
        match e {
            CallError::Rpc { code, message } => Failed {
                code: Some(code),
                error: LspError::Server {
                    server: server.to_owned(),
                    method: method.to_owned(),
                    detail: format!("{message} (code {code})"),
                },
            },
            CallError::Crashed(detail) => Failed::from(LspError::Crashed { server: server.to_owned(), detail }),
        }
    }

    fn position_params(ctx: &Ctx<'_>) -> Value {
        json!({ "textDocument": { "uri": ctx.uri }, "position": ctx.position })
    }

    async fn references(&self, ctx: &mut Ctx<'_>) -> Result<Vec<Location>, LspError> {
        let mut params = Self::position_params(ctx);
        params["context"] = json!({ "includeDeclaration": false });
        let reply = self.request(ctx, "textDocument/references", params).await.map_err(|f| f.error)?;
        Ok(locations(ctx, as_array(&reply)))
    }

    async fn definition(&self, ctx: &mut Ctx<'_>) -> Result<Vec<Location>, LspError> {
        let params = Self::position_params(ctx);
        let reply = self.request(ctx, "textDocument/definition", params).await.map_err(|f| f.error)?;
        // Location | Location[] | LocationLink[] | null
        if reply.is_object() { Ok(locations(ctx, std::slice::from_ref(&reply))) } else { Ok(locations(ctx, as_array(&reply))) }
    }

    async fn hover(&self, ctx: &mut Ctx<'_>) -> Result<Option<String>, LspError> {
        let params = Self::position_params(ctx);
        let reply = self.request(ctx, "textDocument/hover", params).await.map_err(|f| f.error)?;
        let Some(contents) = reply.get("contents") else {
            return Ok(None);
        };
        let text = match serde_json::from_value::<lsp_types::HoverContents>(contents.clone()) {
            Ok(lsp_types::HoverContents::Markup(m)) => m.value,
            Ok(lsp_types::HoverContents::Scalar(s)) => marked(s),
            Ok(lsp_types::HoverContents::Array(items)) => items.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
            Err(e) => {
                debug!(server = %ctx.slot.spec.name, "unreadable hover contents: {e}");
                return Ok(None);
            }
        };
        let text = text.trim().to_owned();
        Ok((!text.is_empty()).then_some(text))
    }

    async fn incoming_calls(&self, ctx: &mut Ctx<'_>, at: &SymbolPosition) -> Result<(Vec<CallSite>, Option<String>), LspError> {
        let server = ctx.slot.spec.name.clone();
        if !capable(&ctx.conn.caps, "callHierarchyProvider") {
            let note = format!("callHierarchy unsupported by {server}; used references");
            return self.calls_from_references(ctx, at, note).await;
        }
        let params = Self::position_params(ctx);
        let items = match self.request(ctx, "textDocument/prepareCallHierarchy", params).await {
            Ok(Value::Array(items)) if !items.is_empty() => items,
            Ok(_) => {
                let note = format!("callHierarchy found no item at the symbol in {server}; used references");
                return self.calls_from_references(ctx, at, note).await;
            }
            Err(Failed { code: Some(METHOD_NOT_FOUND), .. }) => {
                let note = format!("callHierarchy unsupported by {server}; used references");
                return self.calls_from_references(ctx, at, note).await;
            }
            Err(f) => return Err(f.error),
        };
        let mut sites = Vec::new();
        // Several items mean overloads or ambiguity; a few are plenty.
        for item in items.into_iter().take(4) {
            let reply = match self.request(ctx, "callHierarchy/incomingCalls", json!({ "item": item })).await {
                Ok(reply) => reply,
                Err(Failed { code: Some(METHOD_NOT_FOUND), .. }) => {
                    let note = format!("callHierarchy/incomingCalls unsupported by {server}; used references");
                    return self.calls_from_references(ctx, at, note).await;
                }
                Err(f) => return Err(f.error),
            };
            for call in as_array(&reply) {
                if let Some(site) = ctx.files.call_site(call) {
                    sites.push(site);
                }
            }
        }
        sites.sort();
        sites.dedup();
        Ok((sites, None))
    }

    /// Call hierarchy by hand: references, each attributed to the innermost
    /// function or method around it (from `documentSymbol`), else to its file.
    async fn calls_from_references(
        &self,
        ctx: &mut Ctx<'_>,
        at: &SymbolPosition,
        note: String,
    ) -> Result<(Vec<CallSite>, Option<String>), LspError> {
        let refs = self.references(ctx).await?;
        let mut by_file: BTreeMap<String, Vec<Location>> = BTreeMap::new();
        for r in refs {
            by_file.entry(r.path.clone()).or_default().push(r);
        }
        let mut sites: BTreeMap<(Location, String), CallSite> = BTreeMap::new();
        for (path, refs) in by_file {
            let symbols = self.enclosing_candidates(ctx, &path, &at.language).await;
            for r in refs {
                let pos = (r.start_line, r.start_col);
                let enclosing = symbols
                    .iter()
                    .filter(|s| s.range.0 <= pos && pos < s.range.1)
                    .min_by_key(|s| (s.range.1.0 - s.range.0.0, s.range.1.1.wrapping_sub(s.range.0.1)));
                let (name, kind, location) = match enclosing {
                    Some(s) if (s.location.start_line, s.location.start_col) == pos => continue, // the definition itself
                    Some(s) => (s.name.clone(), Some(s.kind.clone()), s.location.clone()),
                    None => {
                        let start = Location { path: path.clone(), start_line: 1, start_col: 1, end_line: 1, end_col: 1 };
                        (path.clone(), Some("file".to_owned()), start)
                    }
                };
                sites
                    .entry((location.clone(), name.clone()))
                    .or_insert_with(|| CallSite { name, kind, location, from: Vec::new() })
                    .from
                    .push(r);
            }
        }
        Ok((sites.into_values().collect(), Some(note)))
    }

    /// Functions, methods, constructors and classes of one file, in Kenning
    /// coordinates; empty when the server cannot say.
    async fn enclosing_candidates(&self, ctx: &mut Ctx<'_>, path: &str, language: &str) -> Vec<Symbol> {
        if !capable(&ctx.conn.caps, "documentSymbolProvider") {
            return Vec::new();
        }
        let abs = self.canonical_root.join(path);
        if Path::new(path).is_absolute() {
            return Vec::new(); // outside the project: not ours to open
        }
        let Ok((text, mtime)) = read_source(&abs, path, &self.root).await else {
            return Vec::new();
        };
        ctx.conn.sync_doc(&abs, &language_id(language, &abs), &text, mtime).await;
        ctx.files.texts.insert(abs.clone(), Some(text));
        let uri = path_to_uri(&abs);
        let params = json!({ "textDocument": { "uri": uri } });
        let Ok(reply) = self.request(ctx, "textDocument/documentSymbol", params).await else {
            return Vec::new();
        };
        let mut out = Vec::new();
        ctx.files.symbols(&abs, &uri, as_array(&reply), &mut out);
        out
    }
}

struct Symbol {
    name: String,
    kind: String,
    /// Whole extent, (line, col) pairs, end exclusive.
    range: ((u32, u32), (u32, u32)),
    /// The name.
    location: Location,
}

/// Files read while converting one answer, and the encoding to convert with.
struct Files<'a> {
    inner: &'a Inner,
    encoding: Encoding,
    texts: FxHashMap<PathBuf, Option<String>>,
}

impl Files<'_> {
    fn location(&mut self, uri: &str, range: &Value) -> Option<Location> {
        let range: lsp_types::Range = serde_json::from_value(range.clone()).ok()?;
        let Some(abs) = uri_to_path(uri) else {
            debug!("skipping a location outside the file system: {uri}");
            return None;
        };
        let (start_line, start_col) = self.point(&abs, range.start);
        let (end_line, end_col) = self.point(&abs, range.end);
        Some(Location { path: self.inner.display_path(&abs), start_line, start_col, end_line, end_col })
    }

    fn point(&mut self, abs: &Path, pos: lsp_types::Position) -> (u32, u32) {
        let line = pos.line + 1;
        if self.encoding == Encoding::Utf8 {
            return (line, pos.character + 1);
        }
        let text =
            self.texts.entry(abs.to_owned()).or_insert_with(|| std::fs::read(abs).ok().map(|b| String::from_utf8_lossy(&b).into_owned()));
        // Unreadable: assume ASCII, where all encodings agree.
        let byte = match text.as_deref().and_then(|t| nth_line(t, pos.line as usize)) {
            Some(l) => units_to_byte(l, pos.character, self.encoding),
            None => pos.character as usize,
        };
        (line, byte as u32 + 1)
    }

    fn call_site(&mut self, call: &Value) -> Option<CallSite> {
        let from = call.get("from")?;
        let uri = from.get("uri")?.as_str()?;
        let location = self.location(uri, from.get("selectionRange")?)?;
        let from_ranges = call.get("fromRanges").map(as_array).unwrap_or_default();
        let mut sites: Vec<Location> = from_ranges.iter().filter_map(|r| self.location(uri, r)).collect();
        sites.sort();
        Some(CallSite {
            name: from.get("name")?.as_str()?.to_owned(),
            kind: from.get("kind").and_then(Value::as_u64).and_then(symbol_kind).map(str::to_owned),
            location,
            from: sites,
        })
    }

    /// Flattens `DocumentSymbol[]` or `SymbolInformation[]`, keeping the
    /// kinds that can contain a call.
    fn symbols(&mut self, abs: &Path, uri: &str, items: &[Value], out: &mut Vec<Symbol>) {
        for item in items {
            let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
            let kind = item.get("kind").and_then(Value::as_u64).unwrap_or(0);
            let (range, selection) = match item.get("location") {
                Some(loc) => {
                    let range = loc.get("range");
                    let uri = loc.get("uri").and_then(Value::as_str).unwrap_or(uri);
                    (range.and_then(|r| self.location(uri, r)), None)
                }
                None => {
                    (item.get("range").and_then(|r| self.location(uri, r)), item.get("selectionRange").and_then(|r| self.location(uri, r)))
                }
            };
            // 5 class, 6 method, 9 constructor, 12 function.
            if let (Some(range), true) = (range, matches!(kind, 5 | 6 | 9 | 12)) {
                let location = selection.unwrap_or_else(|| self.name_location(abs, &range, name));
                out.push(Symbol {
                    name: name.to_owned(),
                    kind: symbol_kind(kind).unwrap_or("function").to_owned(),
                    range: ((range.start_line, range.start_col), (range.end_line, range.end_col)),
                    location,
                });
            }
            if let Some(children) = item.get("children").and_then(Value::as_array) {
                self.symbols(abs, uri, children, out);
            }
        }
    }

    /// `SymbolInformation` has only the whole range; find the name in it.
    fn name_location(&mut self, abs: &Path, range: &Location, name: &str) -> Location {
        let text = self.texts.get(abs).and_then(|t| t.as_deref()).unwrap_or("");
        let (line0, byte) = anchor(text, range.start_line, range.start_col, name);
        let (line, col) = (line0 as u32 + 1, byte as u32 + 1);
        let found = nth_line(text, line0).is_some_and(|l| l.get(byte..).is_some_and(|rest| rest.starts_with(name)));
        let end_col = if found { col + name.len() as u32 } else { col };
        Location { path: range.path.clone(), start_line: line, start_col: col, end_line: line, end_col }
    }
}

impl Inner {
    fn display_path(&self, abs: &Path) -> String {
        for root in [&self.root, &self.canonical_root] {
            if let Ok(rel) = abs.strip_prefix(root) {
                return rel.to_string_lossy().replace('\\', "/");
            }
        }
        abs.to_string_lossy().into_owned()
    }
}

async fn read_source(abs: &Path, shown: &str, root: &Path) -> Result<(String, Option<SystemTime>), LspError> {
    let unreadable = |e: std::io::Error| {
        LspError::Io(format!("cannot read {shown} under {}: {e}; symbol paths must be relative to the bridge root", root.display()))
    };
    let meta = tokio::fs::metadata(abs).await.map_err(unreadable)?;
    let bytes = tokio::fs::read(abs).await.map_err(unreadable)?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), meta.modified().ok()))
}

/// `Location`s or `LocationLink`s, converted, sorted and de-duplicated.
fn locations(ctx: &mut Ctx<'_>, items: &[Value]) -> Vec<Location> {
    let mut out: Vec<Location> = items
        .iter()
        .filter_map(|item| match item.get("targetUri") {
            Some(uri) => {
                let range = item.get("targetSelectionRange").or_else(|| item.get("targetRange"))?;
                ctx.files.location(uri.as_str()?, range)
            }
            None => ctx.files.location(item.get("uri")?.as_str()?, item.get("range")?),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn as_array(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// A provider capability is `true` or an options object.
fn capable(caps: &Value, name: &str) -> bool {
    match caps.get(name) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Object(_)) => true,
        _ => false,
    }
}

fn marked(s: lsp_types::MarkedString) -> String {
    match s {
        lsp_types::MarkedString::String(s) => s,
        lsp_types::MarkedString::LanguageString(ls) => {
            format!("```{}\n{}\n```", ls.language, ls.value)
        }
    }
}

fn symbol_kind(kind: u64) -> Option<&'static str> {
    const KINDS: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum_member",
        "struct",
        "event",
        "operator",
        "type_parameter",
    ];
    KINDS.get(usize::try_from(kind).ok()?.checked_sub(1)?).copied()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
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

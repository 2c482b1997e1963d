//! One live server process: Content-Length framed JSON-RPC over its
//! stdin/stdout. A writer task owns stdin, a reader task routes answers to
//! waiting requests and answers the server's own requests, a supervisor
//! owns the child and notices when it dies. Nothing the server writes can
//! make us panic: bad JSON is logged and skipped, a broken frame ends the
//! connection as if the server had crashed.

use crate::config::ServerSpec;
use crate::text::{Encoding, path_to_uri};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, warn};

/// Larger frames are a broken server, not data: refuse to allocate them.
const MAX_MESSAGE: usize = 64 << 20;
const MAX_HEADER_LINE: u64 = 8 << 10;
const STDERR_TAIL: usize = 8;

pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const REQUEST_CANCELLED: i64 = -32800;
pub(crate) const CONTENT_MODIFIED: i64 = -32801;

pub(crate) enum CallError {
    Rpc { code: i64, message: String },
    Crashed(String),
}

type Reply = Result<Value, CallError>;

/// Told once when the process dies on its own (not when we close it).
pub(crate) type OnDead = Box<dyn FnOnce(&str) + Send>;

/// A poisoned lock only means another thread panicked mid-update; the data
/// here (maps and counters) stays usable, and we must not panic in turn.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Pending {
    dead: Option<String>,
    waiting: FxHashMap<i64, oneshot::Sender<Reply>>,
}

struct Progress {
    /// Work-done progress tokens that began and have not ended.
    active: FxHashSet<String>,
    last_activity: Instant,
}

pub(crate) struct Shared {
    server: String,
    root: PathBuf,
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Mutex<Pending>,
    next_id: AtomicI64,
    progress: Mutex<Progress>,
    stderr_tail: Mutex<VecDeque<String>>,
    exit: watch::Sender<Option<String>>,
    closing: AtomicBool,
    on_dead: Mutex<Option<OnDead>>,
}

/// A spawned server process; killed when dropped.
pub(crate) struct Proc {
    pub(crate) shared: Arc<Shared>,
    kill: Mutex<Option<oneshot::Sender<()>>>,
}

/// An initialized server.
pub(crate) struct Conn {
    pub(crate) proc: Proc,
    pub(crate) encoding: Encoding,
    pub(crate) caps: Value,
    docs: tokio::sync::Mutex<FxHashMap<PathBuf, Doc>>,
}

struct Doc {
    version: i64,
    mtime: Option<SystemTime>,
}

pub(crate) fn spawn(spec: &ServerSpec, program: &Path, root: &Path, on_dead: OnDead) -> std::io::Result<Proc> {
    let mut child = Command::new(program)
        .args(&spec.args)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let missing = || std::io::Error::other("child has no piped stdio");
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take().ok_or_else(missing)?;
    let (out, rx) = mpsc::unbounded_channel();
    let shared = Arc::new(Shared {
        server: spec.name.clone(),
        root: root.to_owned(),
        out,
        pending: Mutex::new(Pending { dead: None, waiting: FxHashMap::default() }),
        next_id: AtomicI64::new(1),
        progress: Mutex::new(Progress { active: FxHashSet::default(), last_activity: Instant::now() }),
        stderr_tail: Mutex::new(VecDeque::new()),
        exit: watch::Sender::new(None),
        closing: AtomicBool::new(false),
        on_dead: Mutex::new(Some(on_dead)),
    });
    let (kill_tx, kill_rx) = oneshot::channel();
    tokio::spawn(write_loop(spec.name.clone(), stdin, rx));
    tokio::spawn(read_loop(shared.clone(), stdout));
    tokio::spawn(stderr_loop(shared.clone(), stderr));
    tokio::spawn(supervise(shared.clone(), child, kill_rx));
    Ok(Proc { shared, kill: Mutex::new(Some(kill_tx)) })
}

impl Proc {
    /// Ends the process on purpose: its death is not a crash.
    pub(crate) fn kill(&self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        if let Some(tx) = lock(&self.kill).take() {
            let _ = tx.send(());
        }
    }

    /// Polite shutdown: `shutdown`, `exit`, then kill after `grace`.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        let shared = &self.shared;
        shared.closing.store(true, Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + grace;
        if let Ok((_, rx)) = shared.start_request("shutdown", Value::Null) {
            let _ = tokio::time::timeout_at(deadline, rx).await;
        }
        shared.notify("exit", Value::Null);
        let mut exit = shared.exit.subscribe();
        let _ = tokio::time::timeout_at(deadline, exit.wait_for(|s| s.is_some())).await;
        self.kill();
    }

    /// Sends `initialize` and `initialized`. The caller bounds the time.
    pub(crate) async fn initialize(&self, spec: &ServerSpec) -> Result<(Encoding, Value), CallError> {
        let shared = &self.shared;
        let root_uri = path_to_uri(&shared.root);
        let root_name = shared.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": { "name": "kenning", "version": env!("CARGO_PKG_VERSION") },
            "rootPath": shared.root.to_string_lossy(),
            "rootUri": root_uri,
            "workspaceFolders": [{ "uri": root_uri, "name": root_name }],
            "initializationOptions": spec.initialization_options,
            "capabilities": {
                "general": { "positionEncodings": ["utf-8", "utf-16"] },
                // clangd before 15 negotiates with its own extension.
                "offsetEncoding": ["utf-8", "utf-16"],
                "window": { "workDoneProgress": true },
                "workspace": { "configuration": true, "workspaceFolders": true },
                "textDocument": {
                    "synchronization": { "dynamicRegistration": false, "didSave": false },
                    "references": { "dynamicRegistration": false },
                    "definition": { "dynamicRegistration": false, "linkSupport": true },
                    "implementation": { "dynamicRegistration": false, "linkSupport": true },
                    "hover": { "dynamicRegistration": false, "contentFormat": ["markdown", "plaintext"] },
                    "callHierarchy": { "dynamicRegistration": false },
                    "documentSymbol": { "dynamicRegistration": false, "hierarchicalDocumentSymbolSupport": true },
                    "publishDiagnostics": { "relatedInformation": false },
                },
            },
        });
        let (_, rx) = shared.start_request("initialize", params)?;
        let reply = rx.await.map_err(|_| shared.dead_error())??;
        if let Some(info) = reply.get("serverInfo") {
            debug!(server = %shared.server, "serverInfo {info}");
        }
        let caps = reply.get("capabilities").cloned().unwrap_or(Value::Null);
        let encoding = caps
            .get("positionEncoding")
            .or_else(|| reply.get("offsetEncoding"))
            .and_then(Value::as_str)
            .and_then(Encoding::from_lsp)
            .unwrap_or(Encoding::Utf16);
        shared.notify("initialized", json!({}));
        // pyright holds every request until it has settings, and fetches
        // them (through workspace/configuration) only when told they changed.
        shared.notify("workspace/didChangeConfiguration", json!({ "settings": {} }));
        Ok((encoding, caps))
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // The supervisor kills the child when this sender goes away; mark it
        // deliberate so the death is not counted as a crash.
        self.shared.closing.store(true, Ordering::SeqCst);
    }
}

impl Conn {
    pub(crate) fn new(proc: Proc, encoding: Encoding, caps: Value) -> Conn {
        Conn { proc, encoding, caps, docs: tokio::sync::Mutex::new(FxHashMap::default()) }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.proc.shared
    }

    /// Opens `path` on first use; re-sends its full text when its mtime moved.
    pub(crate) async fn sync_doc(&self, path: &Path, language_id: &str, text: &str, mtime: Option<SystemTime>) {
        let shared = self.shared();
        let mut docs = self.docs.lock().await;
        let uri = path_to_uri(path);
        match docs.get_mut(path) {
            None => {
                shared.notify(
                    "textDocument/didOpen",
                    json!({ "textDocument": { "uri": uri, "languageId": language_id, "version": 1, "text": text } }),
                );
                docs.insert(path.to_owned(), Doc { version: 1, mtime });
            }
            Some(doc) if doc.mtime != mtime => {
                doc.version += 1;
                doc.mtime = mtime;
                shared.notify(
                    "textDocument/didChange",
                    json!({
                        "textDocument": { "uri": uri, "version": doc.version },
                        "contentChanges": [{ "text": text }],
                    }),
                );
            }
            Some(_) => return,
        }
        shared.touch();
    }
}

impl Shared {
    pub(crate) fn start_request(&self, method: &str, params: Value) -> Result<(i64, oneshot::Receiver<Reply>), CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if let Some(detail) = &pending.dead {
                return Err(CallError::Crashed(detail.clone()));
            }
            pending.waiting.insert(id, tx);
        }
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        Ok((id, rx))
    }

    /// Gives up on a request: the server may stop working on it.
    pub(crate) fn cancel(&self, id: i64) {
        lock(&self.pending).waiting.remove(&id);
        self.notify("$/cancelRequest", json!({ "id": id }));
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    pub(crate) fn is_dead(&self) -> bool {
        lock(&self.pending).dead.is_some()
    }

    pub(crate) fn dead_error(&self) -> CallError {
        CallError::Crashed(self.dead_detail())
    }

    pub(crate) fn dead_detail(&self) -> String {
        let detail = lock(&self.pending).dead.clone();
        detail.unwrap_or_else(|| "the connection closed".to_owned())
    }

    /// How long the server has been quiet, or `None` while a work-done
    /// progress it began is still running.
    pub(crate) fn idle_for(&self) -> Option<Duration> {
        let p = lock(&self.progress);
        p.active.is_empty().then(|| p.last_activity.elapsed())
    }

    fn touch(&self) {
        lock(&self.progress).last_activity = Instant::now();
    }

    fn send(&self, msg: &Value) {
        tracing::trace!(server = %self.server, "-> {:.500}", msg);
        // Serializing a Value cannot fail (its map keys are strings).
        let body = serde_json::to_vec(msg).unwrap_or_default();
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(&body);
        // A closed channel means the writer saw the pipe break; the reader
        // reports the death.
        let _ = self.out.send(frame);
    }

    /// Fails everything waiting and, unless we closed it ourselves, tells
    /// the owner. Only the first call counts.
    fn die(&self, why: &str) {
        let detail = {
            let tail = lock(&self.stderr_tail);
            if tail.is_empty() {
                why.to_owned()
            } else {
                format!("{why}; stderr: {}", tail.iter().cloned().collect::<Vec<_>>().join(" | "))
            }
        };
        let waiting = {
            let mut pending = lock(&self.pending);
            if pending.dead.is_some() {
                return;
            }
            pending.dead = Some(detail.clone());
            std::mem::take(&mut pending.waiting)
        };
        // The owner hears first, so whoever sees the failure below also
        // sees the server marked crashed.
        if self.closing.load(Ordering::SeqCst) {
            debug!(server = %self.server, "closed: {detail}");
        } else {
            warn!(server = %self.server, "language server died: {detail}");
            let on_dead = lock(&self.on_dead).take();
            if let Some(f) = on_dead {
                f(&detail);
            }
        }
        for tx in waiting.into_values() {
            let _ = tx.send(Err(CallError::Crashed(detail.clone())));
        }
    }

    fn dispatch(&self, body: &[u8]) {
        self.touch();
        tracing::trace!(server = %self.server, "<- {:.500}", String::from_utf8_lossy(body));
        let msg: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => {
                warn!(server = %self.server, "skipping a message that is not JSON ({} bytes): {e}", body.len());
                return;
            }
        };
        let Some(obj) = msg.as_object() else {
            warn!(server = %self.server, "skipping a message that is not a JSON object");
            return;
        };
        match (obj.get("method").and_then(Value::as_str), obj.get("id")) {
            (Some(method), Some(id)) => self.answer(method, id.clone(), obj.get("params")),
            (Some(method), None) => self.notification(method, obj.get("params")),
            (None, Some(id)) => self.response(id, obj),
            (None, None) => {
                warn!(server = %self.server, "skipping a message with neither method nor id")
            }
        }
    }

    fn response(&self, id: &Value, obj: &Map<String, Value>) {
        let Some(id) = id.as_i64() else {
            warn!(server = %self.server, "skipping an answer with a foreign id {id}");
            return;
        };
        let Some(tx) = lock(&self.pending).waiting.remove(&id) else {
            // Usually the answer to a request we cancelled after a timeout.
            debug!(server = %self.server, "skipping an answer to no pending request ({id})");
            return;
        };
        let reply = match obj.get("error") {
            Some(err) if !err.is_null() => Err(CallError::Rpc {
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err.get("message").and_then(Value::as_str).unwrap_or("(no message)").to_owned(),
            }),
            _ => Ok(obj.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(reply);
    }

    fn notification(&self, method: &str, params: Option<&Value>) {
        match method {
            "$/progress" => {
                let Some(params) = params else { return };
                let token = match params.get("token") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return,
                };
                let kind = params.get("value").and_then(|v| v.get("kind")).and_then(Value::as_str);
                let mut p = lock(&self.progress);
                match kind {
                    Some("begin") => {
                        p.active.insert(token);
                    }
                    Some("end") => {
                        p.active.remove(&token);
                    }
                    _ => {}
                }
            }
            "window/logMessage" | "window/showMessage" => {
                let text = params.and_then(|p| p.get("message")).and_then(Value::as_str).unwrap_or("");
                debug!(server = %self.server, "{method}: {text}");
            }
            _ => {}
        }
    }

    /// Servers such as pyright and gopls block until their requests are
    /// answered, so every one gets an answer.
    fn answer(&self, method: &str, id: Value, params: Option<&Value>) {
        debug!(server = %self.server, "server request {method}: {:.300}", params.map(|p| p.to_string()).unwrap_or_default());
        let result = match method {
            "workspace/configuration" => {
                let n = params.and_then(|p| p.get("items")).and_then(Value::as_array).map_or(0, Vec::len);
                Ok(Value::Array(vec![Value::Null; n]))
            }
            "client/registerCapability"
            | "client/unregisterCapability"
            | "window/workDoneProgress/create"
            | "window/showMessageRequest" => Ok(Value::Null),
            "workspace/workspaceFolders" => {
                let name = self.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                Ok(json!([{ "uri": path_to_uri(&self.root), "name": name }]))
            }
            _ => Err(method),
        };
        let msg = match result {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err(method) => json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": { "code": METHOD_NOT_FOUND, "message": format!("kenning does not handle {method}") },
            }),
        };
        self.send(&msg);
    }
}

async fn write_loop(server: String, mut stdin: ChildStdin, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(frame) = rx.recv().await {
        let written = async {
            stdin.write_all(&frame).await?;
            stdin.flush().await
        };
        if let Err(e) = written.await {
            debug!(%server, "stdin closed: {e}");
            break;
        }
    }
}

async fn read_loop(shared: Arc<Shared>, stdout: impl AsyncRead + Unpin) {
    let mut reader = BufReader::new(stdout);
    let broken = loop {
        match read_frame(&mut reader, &shared.server).await {
            Ok(Some(body)) => shared.dispatch(&body),
            Ok(None) => break None,
            Err(e) => break Some(format!("protocol error: {e}")),
        }
    };
    let detail = match broken {
        Some(detail) => detail,
        None => {
            // The exit status says more than EOF and usually follows within
            // milliseconds.
            let mut exit = shared.exit.subscribe();
            let status = tokio::time::timeout(Duration::from_millis(500), exit.wait_for(|s| s.is_some()))
                .await
                .ok()
                .and_then(|r| r.ok().and_then(|s| s.clone()));
            status.unwrap_or_else(|| "closed its stdout".to_owned())
        }
    };
    shared.die(&detail);
}

/// One frame's body; `None` at end of stream.
async fn read_frame(reader: &mut (impl AsyncBufRead + Unpin), server: &str) -> Result<Option<Vec<u8>>, String> {
    let mut len = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut *reader).take(MAX_HEADER_LINE).read_until(b'\n', &mut line).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') {
            return Err(format!("a header line longer than {MAX_HEADER_LINE} bytes"));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            if len.is_some() {
                break;
            }
            continue;
        }
        match text.split_once(':') {
            Some((key, value)) if key.trim().eq_ignore_ascii_case("content-length") => {
                let n = value.trim().parse::<usize>().map_err(|_| format!("bad Content-Length {:?}", value.trim()))?;
                len = Some(n);
            }
            Some((key, _)) if !key.contains(' ') => {} // Content-Type and friends
            _ if len.is_none() => {
                // Some servers (or their plugins) print to stdout; skip the
                // stray line and resynchronize on the next header.
                warn!(%server, "skipping stray output: {:.200}", text);
            }
            _ => return Err(format!("malformed header line {:.200?}", text)),
        }
    }
    let len = len.unwrap_or(0);
    if len > MAX_MESSAGE {
        return Err(format!("a {len}-byte message exceeds the {MAX_MESSAGE}-byte limit"));
    }
    let mut body = vec![0; len];
    match reader.read_exact(&mut body).await {
        Ok(_) => Ok(Some(body)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Keeps the pipe drained (a full stderr pipe blocks the server) and the
/// last lines for crash reports.
async fn stderr_loop(shared: Arc<Shared>, mut stderr: impl AsyncRead + Unpin) {
    let mut buf = [0u8; 8192];
    let mut line = Vec::new();
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &buf[..n] {
            if b == b'\n' {
                flush_stderr_line(&shared, &mut line);
            } else if line.len() < 2000 {
                line.push(b);
            }
        }
    }
    flush_stderr_line(&shared, &mut line);
}

fn flush_stderr_line(shared: &Shared, line: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(line).trim().to_owned();
    line.clear();
    if text.is_empty() {
        return;
    }
    debug!(server = %shared.server, "stderr: {text}");
    let mut tail = lock(&shared.stderr_tail);
    if tail.len() == STDERR_TAIL {
        tail.pop_front();
    }
    tail.push_back(text);
}

async fn supervise(shared: Arc<Shared>, mut child: Child, kill: oneshot::Receiver<()>) {
    tokio::select! {
        status = child.wait() => {
            let detail = match status {
                Ok(s) => format!("the process exited ({s})"),
                Err(e) => format!("the process could not be waited for: {e}"),
            };
            shared.exit.send_replace(Some(detail.clone()));
            // The reader reports the death at EOF, after the answers written
            // before exit; this covers a grandchild holding stdout open.
            tokio::time::sleep(Duration::from_secs(1)).await;
            shared.die(&detail);
        }
        // Sent or dropped, both mean stop.
        _ = kill => {
            let _ = child.start_kill();
            let _ = child.wait().await;
            shared.exit.send_replace(Some("killed".to_owned()));
        }
    }
}

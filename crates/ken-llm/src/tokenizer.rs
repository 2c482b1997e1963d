//! The tokenizer of a GGUF model: its `tokenizer.json` when one lies beside
//! the file, otherwise rebuilt from the GGUF's own vocabulary and merges
//! (byte-level BPE, the kind of SmolLM2, Qwen, Llama 3 and GPT-2).

use candle_core::quantized::gguf_file::{Content, Value};
use serde_json::json;
use std::path::Path;
use tokenizers::Tokenizer;

/// GGUF token types (llama.cpp's `llama_token_type`).
const TOKEN_CONTROL: i64 = 3;
const TOKEN_USER_DEFINED: i64 = 4;

/// Llama 3's and Qwen 2's pre-tokenizer split (llama.cpp's `LLAMA3` regex).
const LLAMA3_SPLIT: &str =
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

pub(crate) fn load(gguf: &Path, content: &Content) -> Result<Tokenizer, String> {
    let beside = gguf.with_file_name("tokenizer.json");
    if beside.is_file() {
        return Tokenizer::from_file(&beside).map_err(|e| format!("{}: {e}", beside.display()));
    }
    let meta = &content.metadata;
    let kind = meta.get("tokenizer.ggml.model").and_then(|v| v.to_string().ok()).map(String::as_str).unwrap_or("");
    if kind != "gpt2" {
        return Err(format!("its tokenizer (`{kind}`) cannot be rebuilt from the GGUF; put the model's tokenizer.json beside the file"));
    }
    let strings = |key: &str| -> Result<Vec<String>, String> {
        let values = meta.get(key).ok_or_else(|| format!("no {key}"))?.to_vec().map_err(|e| e.to_string())?;
        values.iter().map(|v| v.to_string().cloned().map_err(|e| e.to_string())).collect()
    };
    let tokens = strings("tokenizer.ggml.tokens")?;
    let merges = strings("tokenizer.ggml.merges")?;
    let types: Vec<i64> = meta
        .get("tokenizer.ggml.token_type")
        .and_then(|v| v.to_vec().ok())
        .map(|values| values.iter().map(integer).collect())
        .unwrap_or_default();
    let added: Vec<serde_json::Value> = tokens
        .iter()
        .enumerate()
        .filter(|(id, _)| matches!(types.get(*id), Some(&TOKEN_CONTROL | &TOKEN_USER_DEFINED)))
        .map(|(id, content)| {
            json!({"id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false,
                   "normalized": false, "special": types.get(id) == Some(&TOKEN_CONTROL)})
        })
        .collect();
    let vocab: serde_json::Map<String, serde_json::Value> =
        tokens.iter().enumerate().map(|(id, token)| (token.clone(), json!(id))).collect();
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true});
    let pre = meta.get("tokenizer.ggml.pre").and_then(|v| v.to_string().ok()).map(String::as_str).unwrap_or("");
    let pre_tokenizer = match pre {
        "smollm" | "starcoder" | "refact" => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": true}, byte_level]}),
        "llama3" | "llama-bpe" | "qwen2" | "smaug-bpe" | "dbrx" => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_SPLIT}, "behavior": "Isolated", "invert": false},
            {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]}),
        _ => byte_level,
    };
    let spec = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                  "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab, "merges": merges}
    });
    let bytes = serde_json::to_vec(&spec).map_err(|e| e.to_string())?;
    Tokenizer::from_bytes(bytes).map_err(|e| format!("its vocabulary does not make a tokenizer: {e}"))
}

pub(crate) fn integer(value: &Value) -> i64 {
    match value {
        Value::U8(v) => i64::from(*v),
        Value::I8(v) => i64::from(*v),
        Value::U16(v) => i64::from(*v),
        Value::I16(v) => i64::from(*v),
        Value::U32(v) => i64::from(*v),
        Value::I32(v) => i64::from(*v),
        Value::U64(v) => *v as i64,
        Value::I64(v) => *v,
        _ => -1,
    }
}

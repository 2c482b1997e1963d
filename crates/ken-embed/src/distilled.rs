//! A static embedder: one vector per vocabulary token, averaged over a
//! text's tokens.
//!
//! Two tables: the one Kenning ships ([`StaticEmbedder::bundled`], trained
//! on code by `bench/static/train.py`), and one distilled here from any
//! local transformer ([`StaticEmbedder::distill`]), the trained table's
//! starting point.
//!
//! Distilling follows model2vec: run every vocabulary token through the teacher
//! on its own (`[CLS] token [SEP]`, mean-pooled), centre and rotate the
//! table with PCA, keep the leading components, and weigh each token by
//! SIF over a Zipf estimate of its frequency (the vocabulary is ordered by
//! frequency), so common tokens count for little. Embedding is then a table
//! lookup: thousands of texts per second per core against tens for the
//! transformer, at some cost in quality that hybrid search measures.

use crate::wordpiece::WordPieces;
use crate::{EmbedError, Embedder, LocalEmbedder, Result, normalize};
use std::io::Write;
use std::path::Path;
use tokenizers::Tokenizer;

/// Bumped when the method changes: the id changes with it, so an index
/// never mixes vectors of two methods.
const METHOD_VERSION: u32 = 1;
/// Components kept by PCA (model2vec's default).
const PCA_DIMS: usize = 256;
/// SIF's `a`: a token of estimated probability `p` weighs `a / (a + p)`.
const SIF_COEFFICIENT: f64 = 1e-4;
/// Tokens read per text; the rest adds little to a mean.
const MAX_TOKENS: usize = 256;
/// Vocabulary tokens per teacher call while distilling.
const DISTILL_BATCH: usize = 4096;

const TABLE_FILE: &str = "vectors.f32";
const META_FILE: &str = "static.json";

#[derive(serde::Serialize, serde::Deserialize)]
struct Meta {
    model_id: String,
    dim: usize,
    vocab: usize,
}

/// Words every program repeats: keywords, literals and the commonest
/// builtins of the languages Kenning mines. Zipf's estimate comes from
/// English, where they are rare, so it weighs them as if they carried
/// meaning; in code they carry almost none.
const CODE_WORDS: &[&str] = &[
    "self",
    "this",
    "def",
    "fn",
    "func",
    "function",
    "return",
    "returns",
    "if",
    "else",
    "elif",
    "for",
    "while",
    "in",
    "is",
    "not",
    "and",
    "or",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "import",
    "from",
    "as",
    "class",
    "struct",
    "enum",
    "impl",
    "pub",
    "let",
    "var",
    "const",
    "mut",
    "new",
    "static",
    "void",
    "int",
    "str",
    "string",
    "bool",
    "use",
    "mod",
    "type",
    "async",
    "await",
    "try",
    "except",
    "catch",
    "finally",
    "raise",
    "throw",
    "throws",
    "with",
    "yield",
    "lambda",
    "pass",
    "break",
    "continue",
    "switch",
    "case",
    "default",
    "public",
    "private",
    "protected",
    "final",
    "override",
    "export",
    "package",
    "interface",
    "extends",
    "implements",
    "end",
    "do",
    "then",
    "fi",
    "local",
    "val",
    "go",
    "match",
    "where",
    "args",
    "kwargs",
    "cls",
    "ok",
    "err",
    "some",
    "result",
    "option",
    "any",
    "object",
    "typing",
    "optional",
    "list",
    "dict",
    "tuple",
    "len",
    "unwrap",
    "to",
    "of",
    "the",
    "a",
    "an",
    "t",
    "x",
    "e",
    "i",
    "n",
    "s",
    "v",
    "k",
];
/// The factor on a code word's vector.
const CODE_WORD_FACTOR: f32 = 0.1;

/// The table trained on code: the table distilled from MiniLM int8,
/// fine-tuned so a docstring's first paragraph lands near its code, over
/// pairs mined from 239 packages of 12 languages that no quality benchmark
/// searches (`bench/static/`). int8 rows with a scale each, in safetensors.
const BUNDLED_TABLE: &[u8] = include_bytes!("../models/code-static.safetensors.zst");
/// all-MiniLM-L6-v2's tokenizer (BERT uncased), which the table indexes.
const BUNDLED_TOKENIZER: &[u8] = include_bytes!("../models/tokenizer.json.zst");

pub struct StaticEmbedder {
    /// The tokenizer, behind its cache of words.
    pieces: WordPieces,
    /// `vocab × dim`, row-major.
    table: Vec<f32>,
    dim: usize,
    model_id: String,
}

/// The id a table distilled from `teacher_id` gets.
pub(crate) fn static_model_id(teacher_id: &str) -> String {
    format!("static-v{METHOD_VERSION}-pca{PCA_DIMS}({teacher_id})")
}

/// all-MiniLM-L6-v2's tokenizer, as the bundled table reads it.
pub(crate) fn bundled_tokenizer() -> Result<Tokenizer> {
    let corrupt = |detail: String| EmbedError::Inference(format!("the bundled static model's tokenizer: {detail}"));
    let bytes = zstd::decode_all(BUNDLED_TOKENIZER).map_err(|e| corrupt(e.to_string()))?;
    let mut tokenizer = Tokenizer::from_bytes(bytes).map_err(|e| corrupt(e.to_string()))?;
    tokenizer.with_truncation(None).map_err(|e| corrupt(format!("truncation: {e}")))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

impl StaticEmbedder {
    /// The table shipped in the binary: nothing to fetch or distill.
    pub fn bundled() -> Result<StaticEmbedder> {
        let corrupt = |detail: String| EmbedError::Inference(format!("the bundled static model: {detail}"));
        let bytes = zstd::decode_all(BUNDLED_TABLE).map_err(|e| corrupt(e.to_string()))?;
        let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).map_err(|e| corrupt(e.to_string()))?;
        let model_id = header.metadata().as_ref().and_then(|m| m.get("model_id").cloned()).ok_or_else(|| corrupt("no model_id".into()))?;
        let tensors = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| corrupt(e.to_string()))?;
        let rows = tensors.tensor("embeddings").map_err(|e| corrupt(e.to_string()))?;
        let scales = tensors.tensor("scales").map_err(|e| corrupt(e.to_string()))?;
        let (&[vocab, dim], safetensors::Dtype::I8, safetensors::Dtype::F32) = (rows.shape(), rows.dtype(), scales.dtype()) else {
            return Err(corrupt(format!("embeddings {:?} {:?}, scales {:?}", rows.shape(), rows.dtype(), scales.dtype())));
        };
        if scales.data().len() != vocab * 4 {
            return Err(corrupt(format!("{} scales for {vocab} rows", scales.data().len() / 4)));
        }
        let scales: Vec<f32> = scales.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        let table = rows.data().iter().enumerate().map(|(i, &q)| q as i8 as f32 * scales[i / dim]).collect();
        let tokenizer = bundled_tokenizer()?;
        // Training weighed code words itself: no factor on top.
        Ok(StaticEmbedder { pieces: WordPieces::new(tokenizer), table, dim, model_id })
    }

    /// Loads a table written by [`StaticEmbedder::distill`].
    pub fn load(dir: &Path) -> Result<StaticEmbedder> {
        let corrupt = |detail: String| EmbedError::ModelCorrupt { dir: dir.to_path_buf(), detail };
        let meta: Meta = std::fs::read_to_string(dir.join(META_FILE))
            .map_err(|e| corrupt(format!("{META_FILE}: {e}")))
            .and_then(|s| serde_json::from_str(&s).map_err(|e| corrupt(format!("{META_FILE}: {e}"))))?;
        let bytes = std::fs::read(dir.join(TABLE_FILE)).map_err(|e| corrupt(format!("{TABLE_FILE}: {e}")))?;
        if bytes.len() != meta.vocab * meta.dim * 4 {
            return Err(corrupt(format!("{TABLE_FILE} holds {} bytes, not {} × {} floats", bytes.len(), meta.vocab, meta.dim)));
        }
        let table: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| corrupt(format!("tokenizer.json: {e}")))?;
        tokenizer.with_truncation(None).map_err(|e| corrupt(format!("tokenizer truncation: {e}")))?;
        tokenizer.with_padding(None);
        let mut table: Vec<f32> = table;
        for word in CODE_WORDS {
            if let Some(id) = tokenizer.token_to_id(word) {
                let start = id as usize * meta.dim;
                if let Some(row) = table.get_mut(start..start + meta.dim) {
                    row.iter_mut().for_each(|x| *x *= CODE_WORD_FACTOR);
                }
            }
        }
        Ok(StaticEmbedder { pieces: WordPieces::new(tokenizer), table, dim: meta.dim, model_id: meta.model_id })
    }

    /// Distils `teacher` into `dir` (tokenizer, table, metadata).
    pub fn distill(teacher: &LocalEmbedder, teacher_id: &str, dir: &Path) -> Result<()> {
        let fail = |detail: String| EmbedError::Inference(format!("distilling the static model: {detail}"));
        let tokenizer = teacher.tokenizer();
        let vocab = tokenizer.get_vocab_size(true);
        let special = |name: &str| tokenizer.token_to_id(name).ok_or_else(|| fail(format!("the tokenizer has no {name} token")));
        let (cls, sep) = (special("[CLS]")?, special("[SEP]")?);
        let sequences: Vec<[u32; 3]> = (0..vocab as u32).map(|id| [cls, id, sep]).collect();
        let mut raw: Vec<Vec<f32>> = Vec::with_capacity(vocab);
        for batch in sequences.chunks(DISTILL_BATCH) {
            let refs: Vec<&[u32]> = batch.iter().map(|s| s.as_slice()).collect();
            raw.extend(teacher.embed_sequences(&refs, false)?);
        }
        let projected = pca(&raw, PCA_DIMS).ok_or_else(|| fail("PCA did not converge".into()))?;
        let dim = projected.first().map_or(0, Vec::len);
        let mut table = Vec::with_capacity(vocab * dim);
        for (rank, row) in projected.iter().enumerate() {
            let weight = sif_weight(rank, vocab) as f32;
            table.extend(row.iter().map(|x| x * weight));
        }
        let io = |what: &str, e: std::io::Error| fail(format!("{}: {e}", dir.join(what).display()));
        std::fs::create_dir_all(dir).map_err(|e| io("", e))?;
        let mut file = std::io::BufWriter::new(std::fs::File::create(dir.join(TABLE_FILE)).map_err(|e| io(TABLE_FILE, e))?);
        for x in &table {
            file.write_all(&x.to_le_bytes()).map_err(|e| io(TABLE_FILE, e))?;
        }
        file.flush().map_err(|e| io(TABLE_FILE, e))?;
        let meta = Meta { model_id: static_model_id(teacher_id), dim, vocab };
        std::fs::write(dir.join(META_FILE), serde_json::to_string_pretty(&meta).unwrap_or_default()).map_err(|e| io(META_FILE, e))?;
        tokenizer.save(dir.join("tokenizer.json"), false).map_err(|e| fail(format!("tokenizer.json: {e}")))?;
        Ok(())
    }

    /// The ids a text's vector sums.
    fn ids(&self, text: &str) -> Result<Vec<u32>> {
        self.pieces.ids(&split_identifiers(text), MAX_TOKENS)
    }

    /// A text's vector and the tokens it read.
    fn embed_one(&self, text: &str) -> Result<(Vec<f32>, usize)> {
        let ids = self.ids(text)?;
        let mut v = vec![0f32; self.dim];
        for &id in &ids {
            let start = id as usize * self.dim;
            if let Some(row) = self.table.get(start..start + self.dim) {
                v.iter_mut().zip(row).for_each(|(a, b)| *a += b);
            }
        }
        // The mean's scale drops out: vectors are compared by cosine.
        normalize(&mut v);
        Ok((v, ids.len()))
    }
}

impl Embedder for StaticEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn is_cheap(&self) -> bool {
        true
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(self.embed_documents_counting(texts)?.0)
    }

    fn embed_documents_counting(&self, texts: &[&str]) -> Result<(Vec<Vec<f32>>, usize)> {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(texts.len().div_ceil(64)).max(1);
        let per = texts.len().div_ceil(workers).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = texts
                .chunks(per)
                .map(|part| scope.spawn(move || part.iter().map(|t| self.embed_one(t)).collect::<Result<Vec<_>>>()))
                .collect();
            let mut out = Vec::with_capacity(texts.len());
            let mut tokens = 0;
            for h in handles {
                for (v, n) in h.join().unwrap_or_else(|_| Err(EmbedError::Inference("worker panicked".into())))? {
                    out.push(v);
                    tokens += n;
                }
            }
            Ok((out, tokens))
        })
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.embed_one(text)?.0)
    }

    fn count_tokens(&self, texts: &[&str]) -> Result<usize> {
        texts.iter().map(|t| Ok(self.ids(t)?.len())).sum()
    }
}

/// SIF weight of the token at `rank` under Zipf's law over `vocab` tokens.
fn sif_weight(rank: usize, vocab: usize) -> f64 {
    // Σ 1/(r+2) for r in 0..vocab, the normaliser of the Zipf estimate.
    let harmonic: f64 = (0..vocab).map(|r| 1.0 / (r as f64 + 2.0)).sum();
    let probability = 1.0 / (rank as f64 + 2.0) / harmonic;
    SIF_COEFFICIENT / (SIF_COEFFICIENT + probability)
}

/// Rows centred and projected on their `dims` leading principal components.
fn pca(rows: &[Vec<f32>], dims: usize) -> Option<Vec<Vec<f32>>> {
    let width = rows.first()?.len();
    let n = rows.len();
    let mut centred = nalgebra::DMatrix::<f64>::from_fn(n, width, |r, c| rows[r][c] as f64);
    for mut column in centred.column_iter_mut() {
        let mean = column.mean();
        column.add_scalar_mut(-mean);
    }
    let covariance = centred.tr_mul(&centred);
    let eigen = nalgebra::SymmetricEigen::try_new(covariance, 1e-12, 10_000)?;
    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
    let axes = eigen.eigenvectors.select_columns(order.iter().take(dims.min(width)));
    let projected = centred * axes;
    Some(projected.row_iter().map(|row| row.iter().map(|&x| x as f32).collect()).collect())
}

/// Splits code identifiers into words the vocabulary knows:
/// `parseHeaderLinks` → `parse Header Links`, `HTTPServer` → `HTTP Server`,
/// `max_retries` → `max retries`.
fn split_identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            out.push(' ');
            continue;
        }
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words() {
        let check = |input: &str, expect: expect_test::Expect| expect.assert_eq(&split_identifiers(input));
        check("parseHeaderLinks", expect_test::expect!["parse Header Links"]);
        check("HTTPServer.max_retries", expect_test::expect!["HTTP Server.max retries"]);
        check("utf8Decode __init__", expect_test::expect!["utf8 Decode   init  "]);
        check("Ünïcode naïveŞtring", expect_test::expect!["Ünïcode naïve Ştring"]);
    }

    #[test]
    fn common_tokens_weigh_less_than_rare_ones() {
        let vocab = 30_000;
        assert!(sif_weight(0, vocab) < sif_weight(1_000, vocab));
        assert!(sif_weight(1_000, vocab) < sif_weight(29_999, vocab));
        assert!(sif_weight(29_999, vocab) <= 1.0);
    }

    #[test]
    fn pca_keeps_the_widest_direction_first() {
        // Points along (1, 1, 0) with a little noise on z: the first
        // component carries nearly all the spread.
        let rows: Vec<Vec<f32>> = (0..50).map(|i| vec![i as f32, i as f32, ((i * 7) % 3) as f32 * 0.01]).collect();
        let projected = pca(&rows, 2).unwrap();
        let spread = |k: usize| projected.iter().map(|r| r[k] * r[k]).sum::<f32>();
        assert!(spread(0) > 1000.0 * spread(1), "{} vs {}", spread(0), spread(1));
        // Centred: the projections sum to zero.
        assert!(projected.iter().map(|r| r[0]).sum::<f32>().abs() < 1e-2);
    }
}

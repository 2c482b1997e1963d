//! Completions kept on disk: `<dir>/<model digest>/<request digest>.json`.
//! A file is written whole to a temporary name and renamed, so a killed
//! process never leaves half an answer; an unreadable entry is a miss.

use crate::{ChatRequest, Completion, Llm, Result};
use std::path::PathBuf;

pub struct Cached<L: ?Sized> {
    dir: PathBuf,
    inner: Box<L>,
}

impl Cached<dyn Llm> {
    pub fn new(inner: Box<dyn Llm>, cache_dir: PathBuf) -> Cached<dyn Llm> {
        let model = xxhash_rust::xxh3::xxh3_64(inner.model_id().as_bytes());
        Cached { dir: cache_dir.join(format!("{model:016x}")), inner }
    }

    fn path(&self, request: &ChatRequest) -> PathBuf {
        let key = serde_json::to_vec(request).unwrap_or_default();
        self.dir.join(format!("{:032x}.json", xxhash_rust::xxh3::xxh3_128(&key)))
    }
}

impl Llm for Cached<dyn Llm> {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn context_tokens(&self) -> usize {
        self.inner.context_tokens()
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }

    fn parallelism(&self) -> usize {
        self.inner.parallelism()
    }

    fn chat(&self, request: &ChatRequest, on_text: &mut dyn FnMut(&str)) -> Result<Completion> {
        let path = self.path(request);
        if let Some(mut hit) = std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice::<Completion>(&bytes).ok()) {
            on_text(&hit.text);
            hit.cached = true;
            hit.first_token = None;
            hit.elapsed = None;
            return Ok(hit);
        }
        let completion = self.inner.chat(request, on_text)?;
        // The request (with its max_tokens) fixes the output: decoding is
        // greedy or seeded by the prompt, so even a cut-off answer is kept.
        let temporary =
            path.with_extension(format!("tmp-{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""));
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&temporary, serde_json::to_vec(&completion).unwrap_or_default()))
            .and_then(|()| std::fs::rename(&temporary, &path));
        if let Err(e) = written {
            tracing::debug!("llm cache {}: {e}", path.display());
            let _ = std::fs::remove_file(&temporary);
        }
        Ok(completion)
    }
}

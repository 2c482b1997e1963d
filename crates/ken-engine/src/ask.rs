//! `Engine::ask`: a question answered by the language model from retrieved
//! code. Retrieval picks the units; spans of one file are merged by line,
//! packed into the model's budget, and ordered against "lost in the
//! middle"; the answer streams through a check that keeps only citations
//! to lines that exist and that the model was shown. Without a model the
//! answer is the retrieved code, with a note saying why.

use crate::api::{AskRequest, AskResponse, AskRetrieval, AskUsage, ClusterTitles, HybridSearchRequest, SearchRequest};
use crate::{Engine, Error};
use ken_llm::Llm;
use ken_llm::answer::{CitationCheck, Excerpt, Span, merge_spans, order_against_middle, pack, prompt, prompt_overhead};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

/// Units retrieved by default: enough to cover a question that spans a few
/// files, few enough that merging and packing stay cheap.
const DEFAULT_K: usize = 16;
const DEFAULT_ANSWER_TOKENS: usize = 512;

impl Engine {
    /// The configured language model, connected on first use (a local model
    /// loads once per process); `Err` says why there is none.
    pub fn llm(&self) -> Result<Arc<dyn Llm>, String> {
        self.llm
            .get_or_init(|| match self.config.llm.connect(&ken_embed::default_cache_dir()) {
                Ok((llm, source)) => {
                    tracing::info!("language model {} from {source:?}", llm.model_id());
                    Ok(Arc::from(llm))
                }
                Err(e) => Err(e.to_string()),
            })
            .clone()
    }

    /// Answers `request.question`, streaming the checked answer to `on_text`.
    pub fn ask(&self, request: &AskRequest, on_text: &mut dyn FnMut(&str)) -> Result<AskResponse, Error> {
        request.validate()?;
        let started = Instant::now();
        let (spans, mut notes) = self.retrieve_for_answer(request)?;
        let store = self.store()?;
        let texts: RefCell<FxHashMap<String, Option<Arc<str>>>> = RefCell::default();
        let text_of = |path: &str| -> Option<Arc<str>> {
            texts.borrow_mut().entry(path.to_string()).or_insert_with(|| store.file_text(path).ok().flatten().map(Arc::from)).clone()
        };
        let excerpts: Vec<Excerpt> = merge_spans(spans)
            .into_iter()
            .filter_map(|span| {
                let text = text_of(&span.path)?;
                let lines: Vec<&str> = text
                    .lines()
                    .skip(span.start_line.saturating_sub(1) as usize)
                    .take((span.end_line + 1 - span.start_line) as usize)
                    .collect();
                (!lines.is_empty())
                    .then(|| Excerpt { text: lines.join("\n"), span: Span { end_line: span.start_line + lines.len() as u32 - 1, ..span } })
            })
            .collect();
        let retrieve_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut response = AskResponse {
            question: request.question.clone(),
            answer: String::new(),
            citations: Vec::new(),
            dropped_citations: Vec::new(),
            context: Vec::new(),
            model: None,
            usage: AskUsage { retrieve_ms, ..AskUsage::default() },
            notes: Vec::new(),
        };
        let llm = match self.llm() {
            Ok(llm) => llm,
            Err(why) => {
                notes.push(format!("{why}; showing the retrieved code instead"));
                response.context = excerpts.into_iter().map(|e| e.span).collect();
                response.notes = notes;
                response.usage.total_ms = started.elapsed().as_secs_f64() * 1000.0;
                return Ok(response);
            }
        };
        let max_tokens = request.max_tokens.unwrap_or(DEFAULT_ANSWER_TOKENS).min(llm.context_tokens() / 2);
        let count = |text: &str| llm.count_tokens(text);
        // Tokens of parts do not add up exactly to the tokens of the whole
        // (merges across joins, the template): a margin keeps the prompt in.
        let margin = llm.context_tokens() / 16;
        let room = llm.context_tokens().saturating_sub(max_tokens + prompt_overhead(&request.question, &count) + margin);
        let budget = request.budget_tokens.map_or(room, |b| b.min(room));
        let packed = order_against_middle(pack(excerpts, budget, &count));
        if packed.is_empty() {
            notes.push("no code in the index answers this; the model was not asked".into());
        }
        response.context = packed.iter().map(|e| e.span.clone()).collect();
        response.model = Some(llm.model_id().to_string());
        if !packed.is_empty() {
            let chat = prompt(&request.question, &packed, max_tokens);
            let lines = |path: &str| text_of(path).map(|t| t.lines().count() as u32);
            let mut check = CitationCheck::new(&response.context, &lines);
            let completion = match llm.chat(&chat, &mut |piece| check.push(piece, on_text)) {
                Ok(completion) => completion,
                Err(e) => {
                    // Degrade to the retrieved code, as without a model.
                    check.finish(on_text);
                    notes.push(format!("{e}; showing the retrieved code instead"));
                    response.answer = check.text.trim().to_string();
                    response.notes = notes;
                    response.usage.total_ms = started.elapsed().as_secs_f64() * 1000.0;
                    return Ok(response);
                }
            };
            check.finish(on_text);
            if completion.finish == ken_llm::FinishReason::Length {
                notes.push(format!("the answer reached its limit of {max_tokens} tokens (max_tokens)"));
            }
            if !check.dropped.is_empty() {
                notes.push(format!("{} citation(s) removed: not lines the model was shown", check.dropped.len()));
            }
            response.answer = check.text.trim().to_string();
            response.citations = check.kept;
            response.dropped_citations = check.dropped;
            response.usage.prompt_tokens = completion.prompt_tokens;
            response.usage.completion_tokens = completion.completion_tokens;
            response.usage.cached = completion.cached;
            response.usage.first_token_ms = completion.first_token.map(|d| retrieve_ms + d.as_secs_f64() * 1000.0);
        }
        response.notes = notes;
        response.usage.total_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(response)
    }

    /// The spans retrieval wants, strongest first, and its notes.
    fn retrieve_for_answer(&self, request: &AskRequest) -> Result<(Vec<Span>, Vec<String>), Error> {
        let k = request.k.unwrap_or(DEFAULT_K);
        match request.retrieval.unwrap_or_default() {
            AskRetrieval::Hybrid => {
                let search = SearchRequest {
                    query_expansion: request.query_expansion,
                    ..SearchRequest::for_text(&request.question, k, &request.languages, request.path.as_deref())
                };
                let found = self.search(&search)?;
                let spans = found
                    .hits
                    .iter()
                    .map(|hit| Span {
                        path: hit.path.clone(),
                        start_line: hit.start_line,
                        end_line: hit.end_line.max(hit.start_line),
                        score: hit.score,
                        label: format!("{} {}", hit.kind.as_str(), hit.qualified_name),
                    })
                    .collect();
                Ok((spans, found.notes))
            }
            AskRetrieval::Pipeline => {
                let search = HybridSearchRequest {
                    query: question_as_query(&request.question),
                    top_k: None,
                    config_overrides: None,
                    explain: false,
                    languages: request.languages.clone(),
                    kinds: Vec::new(),
                    path: request.path.clone(),
                    titles: Some(ClusterTitles::Structural),
                    query_expansion: request.query_expansion,
                };
                let found = self.hybrid_search(&search)?;
                let members = found.results.iter().flat_map(|cluster| &cluster.symbols).take(k);
                let spans = members
                    .enumerate()
                    .map(|(rank, symbol)| Span {
                        path: symbol.file_path.clone(),
                        start_line: symbol.range.start.line,
                        end_line: symbol.range.end.line.max(symbol.range.start.line),
                        score: 1.0 / (rank as f32 + 1.0),
                        label: format!("{} {}", symbol.kind.as_str(), symbol.qualified_name),
                    })
                    .collect();
                Ok((spans, found.notes))
            }
        }
    }
}

/// A long question is cut to what a search reads (the model still gets it whole).
fn question_as_query(question: &str) -> String {
    question.chars().take(crate::api::MAX_QUERY_LEN).collect()
}

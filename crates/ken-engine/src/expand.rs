//! Query expansion by the language model; each rewrite is searched on its
//! own and the lists are fused by reciprocal rank with the query's own.
//! Without a model (or when its output is unusable) the plain search
//! answers, with a note.
//!
//! - `dsl`: CoUnit's query DSL. The query as English, the original wording
//!   and a hypothetical answer in code (HyDE).
//! - `keywords`: MutaGReP's keyword search. The words and identifiers the
//!   answering code likely holds, searched by BM25.

use crate::api::{MAX_QUERY_LEN, QueryExpansion, SearchRequest};
use crate::{Engine, Error};
use ken_search::{Hit, Mode, SearchResponse};
use rustc_hash::FxHashMap;

/// RRF's constant, as for the lanes.
const RRF_K: f32 = 60.0;
/// A rewrite's list counts half as much as the user's own words: it is the
/// model's guess at them (with SmolLM2 at full weight, MRR@10 on the
/// harness's requests questions fell from 0.751 to 0.452).
const REWRITE_WEIGHT: f32 = 0.5;

impl Engine {
    pub(crate) fn search_expanded(&self, request: &SearchRequest, expansion: QueryExpansion) -> Result<SearchResponse, Error> {
        let plain = SearchRequest { query_expansion: Some(QueryExpansion::None), ..request.clone() };
        let rewrites = match self.llm() {
            Ok(llm) => rewrites(&*llm, &request.query, expansion).map_err(|e| e.to_string()),
            Err(why) => Err(why),
        };
        let (rewrites, summary) = match rewrites {
            Ok(found) => found,
            Err(why) => {
                let mut response = self.search(&plain)?;
                response.notes.push(format!("query expansion skipped: {why}"));
                return Ok(response);
            }
        };
        let mut queries: Vec<(&str, String, Option<Mode>)> = vec![("original", request.query.clone(), plain.mode)];
        for (lane, text, mode) in rewrites {
            let text: String = text.trim().chars().take(MAX_QUERY_LEN).collect();
            if !text.is_empty() && !queries.iter().any(|(_, q, _)| q.eq_ignore_ascii_case(&text)) {
                queries.push((lane, text, mode.or(plain.mode)));
            }
        }
        let k = request.k.unwrap_or(10);
        let mut base: Option<SearchResponse> = None;
        let mut fused: FxHashMap<(String, u32, u32, String), (f32, Hit)> = FxHashMap::default();
        let mut notes = Vec::new();
        for (lane, query, mode) in &queries {
            let found = match self.search(&SearchRequest { query: query.clone(), k: Some(k.max(20)), mode: *mode, ..plain.clone() }) {
                Ok(found) => found,
                // The user's query fails as it would unexpanded; a generated one is skipped.
                Err(e) if *lane != "original" => {
                    notes.push(format!("the {lane} query was not searched: {}", e.message));
                    continue;
                }
                Err(e) => return Err(e),
            };
            for (rank, hit) in found.hits.iter().enumerate() {
                let key = (hit.path.clone(), hit.start_line, hit.end_line, hit.qualified_name.clone());
                let weight = if *lane == "original" { 1.0 } else { REWRITE_WEIGHT };
                fused.entry(key).or_insert_with(|| (0.0, hit.clone())).0 += weight / (RRF_K + rank as f32 + 1.0);
            }
            if base.is_none() {
                base = Some(found);
            }
        }
        let mut response = base.expect("the original query was searched");
        let mut hits: Vec<(f32, Hit)> = fused.into_values().collect();
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)).then(a.1.start_line.cmp(&b.1.start_line)));
        response.hits = hits
            .into_iter()
            .take(k)
            .map(|(score, mut hit)| {
                hit.score = score;
                hit
            })
            .collect();
        let lanes: Vec<&str> = queries.iter().map(|(lane, _, _)| *lane).collect();
        notes.insert(0, format!("expanded into {} searches ({}): {summary}", lanes.len(), lanes.join(", ")));
        response.notes.extend(notes);
        Ok(response)
    }
}

/// A rewrite: its name, its text, and the mode to search it in (`None`: the request's).
type Rewrite = (&'static str, String, Option<Mode>);

/// The model's rewrites of `query`, and a line saying what they were.
fn rewrites(llm: &dyn ken_llm::Llm, query: &str, expansion: QueryExpansion) -> ken_llm::Result<(Vec<Rewrite>, String)> {
    Ok(match expansion {
        QueryExpansion::Keywords => {
            let keywords = ken_llm::intents::parse_keywords(&llm.chat(&ken_llm::intents::keyword_request(query), &mut |_| {})?)?;
            let text = keywords.join(" ");
            let summary = format!("keywords {text:?}");
            (vec![("keywords", text, Some(Mode::Lexical))], summary)
        }
        // The user's own wording stands for the original-language query: a
        // small model's echo of it adds nothing and may drift.
        _ => {
            let dsl = ken_llm::dsl::parse(&llm.chat(&ken_llm::dsl::request(query), &mut |_| {})?)?;
            let summary = format!("english {:?}", dsl.english_query.trim());
            (vec![("english", dsl.english_query, None), ("hypothetical code", dsl.hypothetical_document, None)], summary)
        }
    })
}

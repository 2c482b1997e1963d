//! A context pack: the code a task needs within a token budget. Retrieval
//! ranks definitions; each definition brings its neighbours' signatures
//! (callers, callees, base classes: what an agent must know to change it
//! without reading them whole), their whole definitions at a fraction of
//! the value (they fill what room is left), and its file's import header. Candidates
//! are taken by value per token until the budget is spent, pieces of one
//! file that touch are merged by line, and the result is ordered against
//! "lost in the middle".

use crate::api::{ContextPack, ContextPiece, ContextRequest, SearchRequest};
use crate::{Engine, Error};
use ken_core::{RefKind, Relation};
use ken_graph::Graph;
use ken_llm::answer::order_against_middle;
use ken_store::{Store, SymbolRow};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

const DEFAULT_BUDGET: usize = 8192;
const DEFAULT_K: usize = 40;
/// Definitions whose neighbours come along (the strongest ones).
const NEIGHBOURED: usize = 8;
/// Neighbours of one kind per definition.
const NEIGHBOURS: usize = 6;
/// A neighbour's whole definition weighs this share of its signature's value.
const NEIGHBOUR_WHOLE: f32 = 0.15;
/// A definition longer than this is given as its head (signature,
/// docstring, first members) and its members' signatures.
const MAX_DEFINITION_LINES: u32 = 120;
/// An import header is read from the top of a file only.
const MAX_HEADER_LINE: u32 = 80;
/// Lines between two pieces of one file that still join them.
const JOIN_GAP: u32 = 2;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    Definition,
    Signatures,
    Imports,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Definition => "definition",
            Kind::Signatures => "signatures",
            Kind::Imports => "imports",
        }
    }
}

/// One candidate: lines of a file, what they are, and how much they are wanted.
#[derive(Clone, Debug)]
struct Candidate {
    path: String,
    start: u32,
    end: u32,
    kind: Kind,
    label: String,
    value: f32,
}

impl Engine {
    pub fn context(&self, request: &ContextRequest) -> Result<ContextPack, Error> {
        request.validate()?;
        let store = self.store()?;
        let budget = request.budget.unwrap_or(DEFAULT_BUDGET);
        let tokenizer = request.tokenizer.unwrap_or_default();
        // A larger budget holds more definitions: retrieve about one per 200 tokens.
        let k = request.k.unwrap_or((budget / 200).clamp(DEFAULT_K, 200));
        let search = SearchRequest::for_text(&request.task, k, &request.languages, request.path.as_deref());
        let found = self.search(&search)?;
        let mut notes = found.notes;
        let graph = Graph::new(&store);
        let mut candidates = Vec::new();
        let mut seen_symbols = FxHashSet::default();
        let mut headed_files = FxHashSet::default();
        for (rank, hit) in found.hits.iter().enumerate() {
            let value = 1.0 / (rank as f32 + 2.0);
            let row = match hit.symbol_id {
                Some(id) if !seen_symbols.insert(id) => continue,
                Some(id) => store.symbol_by_id(id)?,
                None => None,
            };
            let (start, end) = match &row {
                // A symbol hit is its whole definition; a chunk is its lines.
                Some(row) if hit.unit == "symbol" => (row.start_line, row.end_line),
                _ => (hit.start_line, hit.end_line),
            };
            if end + 1 - start > MAX_DEFINITION_LINES {
                if let Some(row) = &row {
                    candidates.extend(members(&store, row, value)?);
                }
                let head_end = start + MAX_DEFINITION_LINES / 4;
                candidates.push(Candidate {
                    path: hit.path.clone(),
                    start,
                    end: head_end,
                    kind: Kind::Definition,
                    label: label(hit.kind.as_str(), &hit.qualified_name),
                    value,
                });
            } else {
                candidates.push(Candidate {
                    path: hit.path.clone(),
                    start,
                    end,
                    kind: Kind::Definition,
                    label: label(hit.kind.as_str(), &hit.qualified_name),
                    value,
                });
            }
            if headed_files.insert(hit.path.clone())
                && let Some(header) = import_header(&store, &hit.path)?
            {
                candidates.push(Candidate {
                    path: hit.path.clone(),
                    start: header.0,
                    end: header.1,
                    kind: Kind::Imports,
                    label: String::new(),
                    value: value * 0.4,
                });
            }
            if rank < NEIGHBOURED
                && let Some(row) = row
            {
                candidates.extend(neighbours(&graph, &row, value * 0.5)?);
            }
        }
        let texts: std::cell::RefCell<FxHashMap<String, Option<Arc<str>>>> = Default::default();
        let lines_of = |path: &str, start: u32, end: u32| -> Option<String> {
            let text = texts
                .borrow_mut()
                .entry(path.to_string())
                .or_insert_with(|| store.file_text(path).ok().flatten().map(Arc::from))
                .clone()?;
            let lines: Vec<&str> =
                text.lines().skip(start.saturating_sub(1) as usize).take((end + 1).saturating_sub(start) as usize).collect();
            (!lines.is_empty()).then(|| lines.join("\n"))
        };
        let count = |text: &str| tokenizer.count(text);

        // Value per token, strongest first; a candidate that does not fit is skipped, not cut.
        let mut costed: Vec<(Candidate, usize)> = Vec::new();
        for c in candidates {
            let Some(text) = lines_of(&c.path, c.start, c.end) else { continue };
            let cost = count(&render(&c.path, c.start, c.end, &text)) + 1;
            costed.push((c, cost));
        }
        costed.sort_by(|a, b| (b.0.value / (b.1 as f32).sqrt()).total_cmp(&(a.0.value / (a.1 as f32).sqrt())));
        let mut chosen: Vec<Candidate> = Vec::new();
        let mut omitted = 0;
        let mut used = 0;
        for (c, cost) in costed {
            if chosen.iter().any(|k| k.path == c.path && k.start <= c.start && c.end <= k.end && k.kind <= c.kind) {
                continue; // already inside a chosen piece
            }
            if used + cost > budget {
                omitted += 1;
                continue;
            }
            used += cost;
            chosen.push(c);
        }

        let mut pieces = merge(chosen);
        let mut out = Vec::new();
        let mut tokens = 0;
        pieces.sort_by(|a, b| b.value.total_cmp(&a.value));
        for p in pieces {
            let Some(text) = lines_of(&p.path, p.start, p.end) else { continue };
            let cost = count(&render(&p.path, p.start, p.end, &text)) + 1;
            if tokens + cost > budget {
                omitted += 1;
                continue;
            }
            tokens += cost;
            let language = ken_lang::detect(std::path::Path::new(&p.path)).map_or("", |l| l.name()).to_string();
            out.push(ContextPiece {
                path: p.path,
                start_line: p.start,
                end_line: p.end,
                kinds: p.kinds.iter().map(|k| k.name().to_string()).collect(),
                labels: p.labels,
                language,
                tokens: cost,
                text,
            });
        }
        if out.is_empty() {
            notes.push("nothing retrieved for the task fits the budget".into());
        }
        Ok(ContextPack { task: request.task.clone(), budget, tokenizer, tokens, pieces: order_against_middle(out), omitted, notes })
    }
}

fn label(kind: &str, qualified_name: &str) -> String {
    format!("{kind} {qualified_name}")
}

/// How a piece reads to a model: its label line and its code.
fn render(path: &str, start: u32, end: u32, text: &str) -> String {
    format!("{path}:{start}-{end}\n```\n{text}\n```\n")
}

/// The signatures of the members of a long type (its methods and fields).
fn members(store: &Store, row: &SymbolRow, value: f32) -> Result<Vec<Candidate>, Error> {
    let mut out = Vec::new();
    for m in store.members_of(&row.qualified_name)?.into_iter().filter(|m| m.path == row.path) {
        out.push(signature_of(&m, format!("member of {}", row.name), value * 0.6));
    }
    Ok(out)
}

/// A symbol's declaration: the lines of its signature.
fn signature_of(row: &SymbolRow, why: String, value: f32) -> Candidate {
    let lines = row.signature.lines().count().max(1) as u32;
    // Decorators and attributes sit above the name: the signature ends at most that far below the span's start.
    let end = (row.start_line + lines - 1).min(row.end_line);
    Candidate {
        path: row.path.clone(),
        start: row.start_line,
        end,
        kind: Kind::Signatures,
        label: format!("{} {} ({why})", row.kind.as_str(), row.qualified_name),
        value,
    }
}

/// Callers, callees and base classes of a definition, as signatures.
fn neighbours(graph: &Graph<'_>, row: &SymbolRow, value: f32) -> Result<Vec<Candidate>, Error> {
    let mut out = Vec::new();
    let walks = [
        ("caller of", &[Relation::Calls, Relation::Instantiates][..], true),
        ("called by", &[Relation::Calls, Relation::Instantiates][..], false),
        ("base of", &[Relation::DerivedClassOf][..], false),
    ];
    for (why, relations, incoming) in walks {
        let found = graph.follow(row.clone(), relations, incoming, 1)?;
        for hit in found.hits.into_iter().take(NEIGHBOURS) {
            let s = &hit.symbol;
            out.push(signature_of(s, format!("{why} {}", row.name), value));
            // Whole, at a fraction of the value: it fills the room strong candidates leave.
            if s.end_line + 1 - s.start_line <= MAX_DEFINITION_LINES {
                out.push(Candidate {
                    path: s.path.clone(),
                    start: s.start_line,
                    end: s.end_line,
                    kind: Kind::Definition,
                    label: format!("{} {} ({why} {})", s.kind.as_str(), s.qualified_name, row.name),
                    value: value * NEIGHBOUR_WHOLE,
                });
            }
        }
    }
    Ok(out)
}

/// The lines of a file's import statements at its top, as one range.
fn import_header(store: &Store, path: &str) -> Result<Option<(u32, u32)>, Error> {
    let Some(file_id) = store.file_id(path)? else { return Ok(None) };
    let lines: Vec<u32> =
        store.graph_refs(&[RefKind::Import], Some(&[file_id]))?.into_iter().map(|r| r.line).filter(|l| *l <= MAX_HEADER_LINE).collect();
    Ok(lines.iter().min().zip(lines.iter().max()).map(|(a, b)| (*a, *b)))
}

/// A piece: merged candidates of one file.
struct Piece {
    path: String,
    start: u32,
    end: u32,
    kinds: Vec<Kind>,
    labels: Vec<String>,
    value: f32,
}

/// Candidates of one file that overlap or nearly touch become one piece.
fn merge(mut chosen: Vec<Candidate>) -> Vec<Piece> {
    chosen.sort_by(|a, b| (&a.path, a.start, b.end).cmp(&(&b.path, b.start, a.end)));
    let mut out: Vec<Piece> = Vec::new();
    for c in chosen {
        match out.last_mut() {
            Some(p) if p.path == c.path && c.start <= p.end + JOIN_GAP + 1 => {
                p.end = p.end.max(c.end);
                p.value = p.value.max(c.value);
                if !p.kinds.contains(&c.kind) {
                    p.kinds.push(c.kind);
                }
                // One label per symbol: its definition's, else its first reason.
                let symbol = |l: &str| l.split(" (").next().unwrap_or(l).to_string();
                if let Some(known) = p.labels.iter_mut().find(|l| symbol(l) == symbol(&c.label)) {
                    if c.kind == Kind::Definition {
                        *known = c.label;
                    }
                } else if !c.label.is_empty() {
                    p.labels.push(c.label);
                }
            }
            _ => out.push(Piece {
                path: c.path,
                start: c.start,
                end: c.end,
                kinds: vec![c.kind],
                labels: if c.label.is_empty() { Vec::new() } else { vec![c.label] },
                value: c.value,
            }),
        }
    }
    out
}

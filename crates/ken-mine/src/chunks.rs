//! The contextual chunker.
//!
//! AST-aware splitting in the manner of Sweep's chunker: a node that fits the
//! budget stays whole; a larger one is split at its children's boundaries,
//! with small neighbours grouped until the budget is reached; a node that has
//! no children to split at is cut into overlapping line windows. Two
//! definitions never share a chunk, so each chunk has one canonicalName.
//! Each chunk then gets RepoGPT's context: the enclosing (or last preceding)
//! class and method, with their lines.

use crate::Source;
use crate::symbols::Mined;
use ken_core::{Chunk, ChunkBudget, ChunkContext, Language, Symbol, SymbolKind};
use tree_sitter::Node;

/// A run of source, in bytes and 0-based rows.
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: usize,
    end: usize,
    start_row: usize,
    end_row: usize,
    /// Holds a whole definition: it does not merge with another such piece.
    definition: bool,
    /// The row a definition starts on, when this piece is the run of
    /// comments and attributes before it: windows cut from the run are
    /// named after it.
    documents: Option<usize>,
}

impl Piece {
    fn of(node: Node, definition: bool) -> Piece {
        Piece {
            start: node.start_byte(),
            end: node.end_byte(),
            start_row: node.start_position().row,
            end_row: node.end_position().row,
            definition,
            documents: None,
        }
    }

    fn join(self, other: Piece) -> Piece {
        Piece {
            start: self.start,
            end: other.end.max(self.end),
            start_row: self.start_row,
            end_row: other.end_row.max(self.end_row),
            definition: self.definition || other.definition,
            documents: self.documents.or(other.documents),
        }
    }
}

struct Splitter<'s, 'a> {
    src: &'s Source<'a>,
    mined: &'s Mined,
    budget: ChunkBudget,
    /// Line ranges (0-based rows, inclusive) of the chunks, in order, with
    /// the row of the definition a window of its comments documents.
    out: Vec<(usize, usize, Option<usize>)>,
}

impl Splitter<'_, '_> {
    fn fits(&self, p: &Piece) -> bool {
        let (start, end) = (self.src.line_start(p.start_row), self.src.line_end(p.end_row));
        end.saturating_sub(start) <= self.budget.max_chars as usize && p.end_row - p.start_row < self.budget.max_lines as usize
    }

    /// A piece over the budget (a run of comments carried to the code after
    /// it: tokio's `lib.rs` opens with 436 lines of `//!`) is cut into line
    /// windows: an embedding reads only a chunk's first 256 tokens, and BM25
    /// would weigh every word of it against the whole run.
    fn emit(&mut self, p: Piece) {
        if self.fits(&p) || p.start_row == p.end_row {
            self.push(p);
        } else {
            self.windows(p);
        }
    }

    fn push(&mut self, p: Piece) {
        let text = self.src.slice(p.start, p.end);
        if !text.trim().is_empty() {
            self.out.push((p.start_row, p.end_row, p.documents));
        }
    }

    /// Splits `node`, starting with `carry` (a header or comments that must
    /// join the first piece). Returns what is left to carry forward.
    fn split(&mut self, node: Node, carry: Option<Piece>, nesting: u32) -> Option<Piece> {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        // Below `MAX_SPLIT_NESTING` (a 20,000-term expression nests that
        // deep) a node is cut into line windows, so no input can overflow the stack.
        if children.is_empty() || nesting >= MAX_SPLIT_NESTING {
            let whole = Piece::of(node, false);
            let piece = carry.map_or(whole, |c| c.join(whole));
            self.windows(piece);
            return None;
        }
        // A carried header is part of this node, not a whole definition.
        let mut current = carry.map(|c| Piece { definition: false, ..c });
        let mut pending_prefix: Option<Piece> = None;
        for (i, child) in children.iter().enumerate() {
            let kind = child.kind();
            let definition = self.mined.definition_nodes.contains(&child.id());
            let piece = Piece::of(*child, definition);
            let attaches_forward = (kind.contains("comment") || is_decorator(kind)) && i + 1 < children.len();
            if attaches_forward && !definition {
                pending_prefix = Some(pending_prefix.map_or(piece, |p| p.join(piece)));
                continue;
            }
            let piece = pending_prefix.take().map_or(piece, |p| {
                let mut joined = p.join(piece);
                joined.definition = definition;
                joined
            });
            if self.fits(&piece) {
                current = match current {
                    Some(c) if !(c.definition && piece.definition) && self.fits(&c.join(piece)) => Some(c.join(piece)),
                    Some(c) => {
                        self.emit(c);
                        Some(piece)
                    }
                    None => Some(piece),
                };
            } else {
                // Too big. A node's header (`class Foo:`) joins the first
                // piece of its body; a run of earlier statements stands alone.
                // Comments and decorators before the child join its first piece.
                let is_body = node.child_by_field_name("body").is_some_and(|b| b.id() == child.id());
                let own_prefix = (piece.start < child.start_byte()).then(|| Piece {
                    end: child.start_byte(),
                    end_row: child.start_position().row,
                    documents: definition.then(|| child.start_position().row),
                    ..piece
                });
                let carry_in = match current.take() {
                    Some(c) if is_body => Some(own_prefix.map_or(c, |p| c.join(p))),
                    Some(c) => {
                        self.emit(c);
                        own_prefix
                    }
                    None => own_prefix,
                };
                // What is left of a split definition still belongs to it.
                current =
                    self.split(*child, carry_in, nesting + 1).map(|rest| Piece { definition: piece.definition || rest.definition, ..rest });
            }
        }
        if let Some(p) = pending_prefix {
            current = match current {
                Some(c) if !self.fits(&c.join(p)) => {
                    self.emit(c);
                    Some(p)
                }
                c => Some(c.map_or(p, |c| c.join(p))),
            };
        }
        current
    }

    /// Line windows within the budget: the fallback for text with no syntax
    /// to split at. A window that must be cut ends at the last paragraph
    /// break of its second half, and the next starts after it; without one,
    /// windows overlap, so that a sentence cut at the end is whole in the next.
    fn windows(&mut self, p: Piece) {
        let max_lines = self.budget.max_lines.max(1) as usize;
        let overlap = (self.budget.overlap_lines as usize).min(max_lines - 1);
        let mut row = p.start_row;
        loop {
            let mut end = row;
            while end < p.end_row
                && end + 1 - row < max_lines
                && self.src.line_end(end + 1) - self.src.line_start(row) <= self.budget.max_chars as usize
            {
                end += 1;
            }
            let paragraph_end = (end < p.end_row)
                .then(|| ((row + (end - row) / 2).max(row + 1)..=end).rev().find(|&r| self.is_blank(r) && !self.is_heading(r - 1)))
                .flatten();
            let cut = paragraph_end.unwrap_or(end);
            self.push(Piece {
                start: self.src.line_start(row),
                end: self.src.line_end(cut),
                start_row: row,
                end_row: cut,
                definition: false,
                documents: p.documents,
            });
            if cut >= p.end_row {
                break;
            }
            row = match paragraph_end {
                Some(blank) => blank + 1,
                None => (end + 1).saturating_sub(overlap).max(row + 1),
            };
        }
    }

    fn line(&self, row: usize) -> &str {
        self.src.slice(self.src.line_start(row), self.src.line_end(row)).trim()
    }

    /// Whether a row is empty but for comment markers (`//!`, ` *`, `#`): a
    /// paragraph break in prose and code alike.
    fn is_blank(&self, row: usize) -> bool {
        self.line(row).trim_matches(['/', '!', '*', '#']).trim().is_empty()
    }

    /// Whether a row is a Markdown heading (`//! ## Lagging`), which belongs
    /// with the paragraph after it.
    fn is_heading(&self, row: usize) -> bool {
        self.line(row).trim_start_matches(['/', '!', '*']).trim_start().starts_with('#')
    }
}

/// Deep enough for any hand-written nesting of definitions and blocks.
const MAX_SPLIT_NESTING: u32 = 128;

fn is_decorator(kind: &str) -> bool {
    matches!(kind, "decorator" | "attribute_item" | "attribute_list" | "annotation")
}

/// `whole_file`: the text before the tree's first token is part of the
/// first chunk (a component's template above its `<script>`), as the text
/// after its last always is.
pub(crate) fn split(src: &Source, root: Node, mined: &Mined, budget: &ChunkBudget, whole_file: bool) -> Vec<Chunk> {
    let mut splitter = Splitter { src, mined, budget: *budget, out: Vec::new() };
    let lead = (whole_file && root.start_byte() > 0).then(|| Piece {
        start: 0,
        end: root.start_byte(),
        start_row: 0,
        end_row: root.start_position().row,
        definition: false,
        documents: None,
    });
    let whole = Piece::of(root, false);
    let whole = lead.map_or(whole, |l| l.join(whole));
    if splitter.fits(&whole) {
        splitter.emit(whole);
    } else if let Some(rest) = splitter.split(root, lead, 0) {
        splitter.emit(rest);
    }
    let mut rows = splitter.out;
    rows.sort();
    rows.dedup();
    rows.into_iter().map(|(s, e, documents)| contextualize(src, &mined.symbols, s, e, documents)).collect()
}

/// Chunks by line windows alone, for text that could not be parsed at all.
pub(crate) fn line_windows_only(text: &str, budget: &ChunkBudget) -> Vec<Chunk> {
    let src = Source::new(text);
    let mined = Mined {
        naming: crate::naming::naming(Language::C, "", None),
        declared_package: None,
        symbols: Vec::new(),
        name_positions: Default::default(),
        definition_nodes: Default::default(),
        def_starts: Default::default(),
        regions: Vec::new(),
    };
    let mut splitter = Splitter { src: &src, mined: &mined, budget: *budget, out: Vec::new() };
    let last = src.line_count().saturating_sub(1);
    splitter.windows(Piece { start: 0, end: text.len(), start_row: 0, end_row: last, definition: false, documents: None });
    splitter.out.into_iter().map(|(s, e, _)| contextualize(&src, &[], s, e, None)).collect()
}

fn contextualize(src: &Source, symbols: &[Symbol], start_row: usize, end_row: usize, documents: Option<usize>) -> Chunk {
    let (start_line, end_line) = (start_row as u32 + 1, end_row as u32 + 1);
    let context = |want: fn(SymbolKind) -> bool| -> Option<ChunkContext> {
        let enclosing = symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| want(s.kind) && s.span.start_line <= start_line && start_line <= s.span.end_line)
            .max_by_key(|(_, s)| s.span.start_byte);
        let (index, symbol, encloses) = match enclosing {
            Some((i, s)) => (i, s, true),
            None => {
                let (i, s) = symbols
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| want(s.kind) && s.span.start_line < start_line)
                    .max_by_key(|(_, s)| s.span.start_byte)?;
                (i, s, false)
            }
        };
        Some(ChunkContext {
            symbol: index as u32,
            name: symbol.name.clone(),
            start_line: symbol.span.start_line,
            end_line: symbol.span.end_line,
            encloses,
        })
    };
    // Named after the definition its comments document, else the innermost
    // symbol holding the whole chunk, else the outermost definition
    // starting in it.
    let documented = documents
        .and_then(|row| symbols.iter().enumerate().skip(1).find(|(_, s)| s.span.start_line as usize == row + 1).map(|(i, _)| i as u32));
    let holder = symbols
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, s)| s.span.start_line <= start_line && end_line <= s.span.end_line)
        .max_by_key(|(_, s)| s.span.start_byte)
        .map(|(i, _)| i as u32);
    let first_inside = || {
        symbols
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, s)| start_line <= s.span.start_line && s.span.start_line <= end_line)
            .map(|(i, _)| i as u32)
    };
    Chunk {
        start_line,
        end_line,
        start_byte: src.line_start(start_row) as u32,
        end_byte: src.line_end(end_row) as u32,
        symbol: documented.or(holder).or_else(first_inside),
        class: context(SymbolKind::is_type),
        method: context(SymbolKind::is_callable),
    }
}

/// RepoGPT's context header for a chunk: what gets embedded and shown.
pub fn render_header(path: &str, language: Language, chunk: &Chunk, canonical_name: &str) -> String {
    let lines = format!("lines {} to {}", chunk.start_line, chunk.end_line);
    // A unit of a document or configuration is named `path > heading path`.
    let unit = canonical_name.strip_prefix(path).and_then(|rest| rest.strip_prefix(" > ")).filter(|u| !u.is_empty());
    match language.family() {
        ken_core::Family::Doc => {
            let mut header = format!("The following {language} text is from the file {path}, {lines}.");
            if let Some(section) = unit {
                header.push_str(&format!(" It is in the section `{section}`."));
            }
            return header;
        }
        ken_core::Family::Config => {
            let mut header = format!("The following {language} configuration is from the file {path}, {lines}.");
            if let Some(key) = unit {
                header.push_str(&format!(" It is under `{key}`."));
            }
            return header;
        }
        ken_core::Family::Text => return format!("The following text is from the file {path}, {lines}."),
        ken_core::Family::Code => {}
    }
    let mut header = format!("The following {language} code is from the file {path}, lines {} to {}.", chunk.start_line, chunk.end_line);
    let describe = |header: &mut String, what: &str, ctx: &ChunkContext| {
        let relation = if ctx.encloses { "inside" } else { "after" };
        header.push_str(&format!(" It is {relation} the {what} `{}` (lines {} to {}).", ctx.name, ctx.start_line, ctx.end_line));
    };
    if let Some(class) = &chunk.class {
        describe(&mut header, "class", class);
    }
    if let Some(method) = &chunk.method {
        describe(&mut header, "function", method);
    }
    if !canonical_name.is_empty() {
        header.push_str(&format!(" canonicalName: {canonical_name}"));
    }
    header
}

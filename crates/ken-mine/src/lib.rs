//! Pure analysis of one source file: symbols, raw references and contextual
//! chunks, from a tree-sitter parse; documents, configuration and text by
//! their headings and keys (`structure.rs`).
//!
//! Nothing here touches the disk, processes or the network. Broken input is
//! data: a file that does not parse still yields what tree-sitter recovered,
//! with its error count, and no input makes the miner panic.

mod chunks;
mod docs;
mod macros;
mod naming;
mod references;
mod structure;
mod symbols;
mod types;

use ken_core::{ChunkBudget, FileAnalysis, Language};
use rustc_hash::FxHashMap;
use tree_sitter::{Node, Parser};

pub use chunks::render_header;
pub use naming::{Naming, naming, qualify};

/// Parses and mines files. Holds one tree-sitter parser per language, so keep
/// one `Miner` per thread.
#[derive(Default)]
pub struct Miner {
    parsers: FxHashMap<Language, Parser>,
}

impl Miner {
    pub fn new() -> Miner {
        Miner::default()
    }

    /// Mines one file. `path` is relative to the repository root, with `/`
    /// separators; it decides the module path.
    pub fn analyze(&mut self, path: &str, language: Language, source: &str, budget: &ChunkBudget) -> FileAnalysis {
        let config = ken_lang::config(language);
        let Some(grammar) = &config.grammar else {
            // Documents, configuration and text: split by headings and keys.
            return structure::mine(path, language, source, budget);
        };
        let parser = self.parsers.entry(language).or_insert_with(|| {
            let mut parser = Parser::new();
            // The registry only holds grammars this tree-sitter version loads.
            let _ = parser.set_language(grammar);
            parser
        });
        let lines = line_count(source);
        // A component's `<script>` blocks, in place: the tree's positions are the file's.
        let code = config.script_blocks.then(|| ken_lang::script_blocks(source));
        let Some(mut tree) = parser.parse(code.as_deref().unwrap_or(source), None) else {
            // Parsing was cancelled or the grammar is unusable: keep the text searchable.
            let naming = naming(language, path, None);
            return FileAnalysis {
                module: naming.module.clone(),
                symbols: vec![symbols::module_symbol(&naming, source, lines)],
                chunks: chunks::line_windows_only(source, budget),
                parse_errors: 1,
                lines,
                ..FileAnalysis::default()
            };
        };
        if language == Language::Rust
            && let Some(unwrapped) = macros::unwrap_item_macros(parser, source, &tree)
        {
            tree = unwrapped;
        }
        let root = tree.root_node();
        let src = Source::new(source);
        let mut mined = symbols::mine(config, path, &src, root);
        let references = references::mine(config, &src, root, &mined);
        let mut symbols = std::mem::take(&mut mined.symbols);
        let bindings = types::mine(config, &src, root, &mined, &mut symbols);
        mined.symbols = symbols;
        let chunks = chunks::split(&src, root, &mined, budget, config.script_blocks);
        FileAnalysis {
            module: mined.naming.module.clone(),
            declared_package: mined.declared_package.clone(),
            symbols: mined.symbols,
            references,
            bindings,
            chunks,
            parse_errors: count_errors(root),
            lines,
        }
    }
}

/// Source text with line offsets, shared by the mining passes.
pub(crate) struct Source<'a> {
    pub text: &'a str,
    line_starts: Vec<u32>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Source<'a> {
        let mut line_starts = vec![0u32];
        line_starts.extend(memchr_newlines(text).map(|i| i as u32 + 1));
        Source { text, line_starts }
    }

    /// Text of a byte range; empty rather than a panic if the range is off.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start..end.min(self.text.len())).unwrap_or("")
    }

    pub fn node(&self, node: Node) -> &'a str {
        self.slice(node.start_byte(), node.end_byte())
    }

    /// Byte offset where 0-based `row` starts.
    pub fn line_start(&self, row: usize) -> usize {
        self.line_starts.get(row).map_or(self.text.len(), |&s| s as usize)
    }

    /// Byte offset where 0-based `row` ends, before its newline.
    pub fn line_end(&self, row: usize) -> usize {
        match self.line_starts.get(row + 1) {
            Some(&next) => (next as usize).saturating_sub(1),
            None => self.text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}

fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i)
}

fn line_count(source: &str) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = memchr_newlines(source).count();
    (newlines + usize::from(!source.ends_with('\n'))) as u32
}

/// Counts ERROR and MISSING nodes, descending only into subtrees that have one.
fn count_errors(root: Node) -> u32 {
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
            continue;
        }
        for child in node.children(&mut cursor) {
            if child.has_error() {
                stack.push(child);
            }
        }
    }
    count
}

/// 1-based line and byte column of a tree-sitter point.
pub(crate) fn line_col(point: tree_sitter::Point) -> (u32, u32) {
    (point.row as u32 + 1, point.column as u32 + 1)
}

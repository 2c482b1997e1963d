//! Prints the syntax tree of a file as Kenning's grammars parse it, one
//! named node per line with its field name and position: what a query
//! author needs. `cargo run -p ken-lang --example tree -- FILE [LANG]`

use std::fmt::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: tree FILE [LANGUAGE]");
        std::process::exit(2);
    };
    let language = match args.get(1) {
        Some(name) => ken_core::Language::from_name_or_list(name).unwrap_or_else(|e| fail(&e)),
        None => ken_lang::detect(std::path::Path::new(path)).unwrap_or_else(|| fail("unknown language; pass it")),
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&e.to_string()));
    let config = ken_lang::config(language);
    // A component's `<script>` blocks, as the miner parses them.
    let text = if config.script_blocks { ken_lang::script_blocks(&text) } else { text };
    let Some(grammar) = &config.grammar else { fail("no grammar for this language") };
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(grammar).unwrap_or_else(|e| fail(&e.to_string()));
    let tree = parser.parse(&text, None).unwrap_or_else(|| fail("no tree"));
    let mut out = String::new();
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        let node = cursor.node();
        if node.is_named() || node.is_missing() {
            let field = cursor.field_name().map(|f| format!("{f}: ")).unwrap_or_default();
            let pos = node.start_position();
            let leaf = if node.named_child_count() == 0 { format!(" `{}`", &text[node.byte_range()]) } else { String::new() };
            let _ = writeln!(out, "{}{field}({}) {}:{}{leaf}", "  ".repeat(depth), node.kind(), pos.row + 1, pos.column + 1);
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                print!("{out}");
                return;
            }
            depth -= 1;
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("tree: {message}");
    std::process::exit(1);
}

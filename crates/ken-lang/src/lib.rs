//! The language registry: which grammar, file extensions, query files and
//! conventions belong to each language Kenning mines.
//!
//! Queries are data (`queries/<lang>/{symbols,references}.scm`), compiled once
//! per process. A query that fails to compile disables that one feature for
//! that one language and is reported by [`LanguageConfig::problems`]; it never
//! stops a run. The `queries_compile` test keeps the bundled set clean.
//!
//! Capture names the miner understands:
//! - symbols: `@definition.<kind>` (a `ken_core::SymbolKind`), `@scope` for a
//!   named scope that is not itself a symbol (a Rust `impl`, a C++ namespace),
//!   `@package` for a declared package or namespace, and `@name` for the name.
//! - references: `@reference.<kind>` (a `ken_core::RefKind`) with `@name`,
//!   optional `@receiver`, `@path` (module of an import), `@alias`, and
//!   `@callee` (the callee expression, so it is not also counted as a field use).
//! - types (optional `types.scm`): `@binding` around a typed name, with
//!   `@name` (the bound name) and one of `@type` (an annotation), `@value`
//!   (the callee whose result is assigned) or `@alias` (a name whose type it
//!   shares, `self.s = s`); `@returns` on a definition node,
//!   with `@type` for its declared return type.

use ken_core::Language;
use std::path::Path;
use std::sync::OnceLock;
use tree_sitter::Query;

/// How a language attaches documentation to a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocStyle {
    /// A string literal as the first statement of the body (Python).
    FirstStringInBody,
    /// Comments directly above the definition (everything else).
    PrecedingComments,
}

/// Per-language facts the miner needs besides the queries.
pub struct LanguageConfig {
    pub language: Language,
    pub extensions: &'static [&'static str],
    pub grammar: tree_sitter::Language,
    pub doc_style: DocStyle,
    /// Method names that make a method a constructor (`__init__`, `constructor`).
    pub constructor_names: &'static [&'static str],
    /// Sibling node kinds placed before a definition that belong to its span
    /// (Rust attributes, TypeScript decorators).
    pub decorator_kinds: &'static [&'static str],
    /// Field names under which a definition keeps its body; the signature is
    /// the text before it.
    pub body_fields: &'static [&'static str],
    pub symbols: Option<Query>,
    pub references: Option<Query>,
    pub types: Option<Query>,
    problems: Vec<String>,
}

impl LanguageConfig {
    /// Why a query of this language is unavailable, if one is.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

struct Spec {
    language: Language,
    extensions: &'static [&'static str],
    grammar: fn() -> tree_sitter::Language,
    doc_style: DocStyle,
    constructor_names: &'static [&'static str],
    decorator_kinds: &'static [&'static str],
    body_fields: &'static [&'static str],
    symbols: &'static str,
    references: &'static str,
    types: &'static str,
}

macro_rules! queries {
    ($dir:literal) => {
        (
            include_str!(concat!("../queries/", $dir, "/symbols.scm")),
            include_str!(concat!("../queries/", $dir, "/references.scm")),
            include_str!(concat!("../queries/", $dir, "/types.scm")),
        )
    };
}

const COMMON_BODY: &[&str] = &["body"];

fn specs() -> Vec<Spec> {
    let spec = |language,
                extensions,
                grammar: fn() -> tree_sitter::Language,
                doc_style,
                constructor_names,
                decorator_kinds,
                body_fields,
                (symbols, references, types): (&'static str, &'static str, &'static str)| Spec {
        language,
        extensions,
        grammar,
        doc_style,
        constructor_names,
        decorator_kinds,
        body_fields,
        symbols,
        references,
        types,
    };
    use DocStyle::*;
    vec![
        spec(
            Language::Python,
            &["py", "pyi"],
            || tree_sitter_python::LANGUAGE.into(),
            FirstStringInBody,
            &["__init__"],
            &[],
            COMMON_BODY,
            queries!("python"),
        ),
        spec(
            Language::Rust,
            &["rs"],
            || tree_sitter_rust::LANGUAGE.into(),
            PrecedingComments,
            &["new"],
            &["attribute_item"],
            COMMON_BODY,
            queries!("rust"),
        ),
        spec(
            Language::JavaScript,
            &["js", "mjs", "cjs", "jsx"],
            || tree_sitter_javascript::LANGUAGE.into(),
            PrecedingComments,
            &["constructor"],
            &["decorator"],
            COMMON_BODY,
            queries!("javascript"),
        ),
        spec(
            Language::TypeScript,
            &["ts", "mts", "cts"],
            || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            PrecedingComments,
            &["constructor"],
            &["decorator"],
            COMMON_BODY,
            queries!("typescript"),
        ),
        spec(
            Language::Tsx,
            &["tsx"],
            || tree_sitter_typescript::LANGUAGE_TSX.into(),
            PrecedingComments,
            &["constructor"],
            &["decorator"],
            COMMON_BODY,
            // TSX is TypeScript plus JSX: same symbols, plus JSX component references.
            (
                include_str!("../queries/typescript/symbols.scm"),
                concat!(include_str!("../queries/typescript/references.scm"), include_str!("../queries/tsx/jsx.scm")),
                include_str!("../queries/typescript/types.scm"),
            ),
        ),
        spec(Language::Go, &["go"], || tree_sitter_go::LANGUAGE.into(), PrecedingComments, &[], &[], COMMON_BODY, queries!("go")),
        spec(Language::Java, &["java"], || tree_sitter_java::LANGUAGE.into(), PrecedingComments, &[], &[], COMMON_BODY, queries!("java")),
        spec(
            Language::CSharp,
            &["cs"],
            || tree_sitter_c_sharp::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            &["body", "accessors"],
            queries!("csharp"),
        ),
        spec(Language::C, &["c", "h"], || tree_sitter_c::LANGUAGE.into(), PrecedingComments, &[], &[], COMMON_BODY, queries!("c")),
        spec(
            Language::Cpp,
            &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"],
            || tree_sitter_cpp::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("cpp"),
        ),
        spec(
            Language::Ruby,
            &["rb", "rake", "gemspec"],
            || tree_sitter_ruby::LANGUAGE.into(),
            PrecedingComments,
            &["initialize"],
            &[],
            &["body"],
            queries!("ruby"),
        ),
        spec(
            Language::Php,
            &["php"],
            || tree_sitter_php::LANGUAGE_PHP.into(),
            PrecedingComments,
            &["__construct"],
            &["attribute_list"],
            COMMON_BODY,
            queries!("php"),
        ),
    ]
}

fn compile(grammar: &tree_sitter::Language, source: &str, what: &str, lang: Language, problems: &mut Vec<String>) -> Option<Query> {
    if source.trim().is_empty() {
        return None;
    }
    match Query::new(grammar, source) {
        Ok(query) => Some(query),
        Err(err) => {
            problems.push(format!("{lang}/{what}.scm: {err}"));
            None
        }
    }
}

fn build(spec: Spec) -> LanguageConfig {
    let grammar = (spec.grammar)();
    let mut problems = Vec::new();
    let symbols = compile(&grammar, spec.symbols, "symbols", spec.language, &mut problems);
    let references = compile(&grammar, spec.references, "references", spec.language, &mut problems);
    let types = compile(&grammar, spec.types, "types", spec.language, &mut problems);
    LanguageConfig {
        language: spec.language,
        extensions: spec.extensions,
        grammar,
        doc_style: spec.doc_style,
        constructor_names: spec.constructor_names,
        decorator_kinds: spec.decorator_kinds,
        body_fields: spec.body_fields,
        symbols,
        references,
        types,
        problems,
    }
}

/// The configuration of one language. Its queries compile on first use
/// (the C++ ones take a quarter of a second), once per process.
pub fn config(language: Language) -> &'static LanguageConfig {
    static CONFIGS: [OnceLock<LanguageConfig>; Language::ALL.len()] = [const { OnceLock::new() }; Language::ALL.len()];
    let slot = Language::ALL.iter().position(|l| *l == language).expect("Language::ALL lists every language");
    CONFIGS[slot].get_or_init(|| {
        let spec = specs().into_iter().find(|s| s.language == language).expect("every Language has a registry entry");
        build(spec)
    })
}

/// Every registered language, in `Language::ALL` order.
pub fn all() -> Vec<&'static LanguageConfig> {
    Language::ALL.into_iter().map(config).collect()
}

/// The language of a file, judged by its extension (case-insensitive).
pub fn detect(path: &Path) -> Option<Language> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    specs().iter().find(|s| s.extensions.contains(&ext.as_str())).map(|s| s.language)
}

//! The language registry: which grammar, file extensions, query files and
//! conventions belong to each language Kenning mines.
//!
//! Documents, configuration and other text have no grammar here: ken-mine
//! splits them by headings and keys ([`Detected`] says what to skip).
//!
//! Queries are data (`queries/<lang>/{symbols,references}.scm`), compiled once
//! per process. A query that fails to compile disables that one feature for
//! that one language and is reported by [`LanguageConfig::problems`]; it never
//! stops a run. The `queries_compile` test keeps the bundled set clean.
//!
//! Capture names the miner understands:
//! - symbols: `@definition.<kind>` (a `ken_core::SymbolKind`), `@scope` for a
//!   named scope that is not itself a symbol whose functions are methods (a
//!   Rust `impl`), `@namespace` for one whose functions stay functions (a C++
//!   namespace),
//!   `@package` for a declared package or namespace, and `@name` for the name;
//!   a pattern's `(#set! receiver "var")` puts a word before its receiver
//!   (Terraform's `variable "x"` is `var.x`).
//! - references: `@reference.<kind>` (a `ken_core::RefKind`) with `@name`,
//!   optional `@receiver`, `@path` (module of an import), `@alias`, `@glob`
//!   (on an import with `@path` and no `@name`: it brings every name), and
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
    /// A string literal directly above the definition (Julia), else comments.
    PrecedingString,
}

/// Per-language facts the miner needs besides the queries.
pub struct LanguageConfig {
    pub language: Language,
    pub extensions: &'static [&'static str],
    /// `None` for documents, configuration and text, which are mined by
    /// their structure (headings, keys) rather than a syntax tree.
    pub grammar: Option<tree_sitter::Language>,
    pub doc_style: DocStyle,
    /// Method names that make a method a constructor (`__init__`, `constructor`).
    pub constructor_names: &'static [&'static str],
    /// Sibling node kinds placed before a definition that belong to its span
    /// (Rust attributes, TypeScript decorators).
    pub decorator_kinds: &'static [&'static str],
    /// Field names under which a definition keeps its body; the signature is
    /// the text before it.
    pub body_fields: &'static [&'static str],
    /// Functions are written as several clauses in a row (`f 0 = 1`,
    /// `f n = …`), which make one symbol.
    pub clauses: bool,
    /// The code is what the file's `<script>` blocks hold (Vue and Svelte
    /// components): the rest is blanked before parsing, so lines, columns
    /// and byte offsets stay the file's ([`script_blocks`]).
    pub script_blocks: bool,
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
    grammar: Option<fn() -> tree_sitter::Language>,
    doc_style: DocStyle,
    constructor_names: &'static [&'static str],
    decorator_kinds: &'static [&'static str],
    body_fields: &'static [&'static str],
    clauses: bool,
    script_blocks: bool,
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
    // A language whose symbols take a family's shared patterns too.
    ($dir:literal + $shared:literal) => {
        (
            concat!(
                include_str!(concat!("../queries/", $dir, "/symbols.scm")),
                "\n",
                include_str!(concat!("../queries/", $shared, "/symbols.scm"))
            ),
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
        grammar: Some(grammar),
        doc_style,
        constructor_names,
        decorator_kinds,
        body_fields,
        clauses: false,
        script_blocks: false,
        symbols,
        references,
        types,
    };
    let clauses = |spec: Spec| Spec { clauses: true, ..spec };
    let script_blocks = |spec: Spec| Spec { script_blocks: true, ..spec };
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
            queries!("javascript" + "ecmascript"),
        ),
        spec(
            Language::TypeScript,
            &["ts", "mts", "cts"],
            || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            PrecedingComments,
            &["constructor"],
            &["decorator"],
            COMMON_BODY,
            queries!("typescript" + "ecmascript"),
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
        spec(
            Language::Bash,
            &["sh", "bash", "bats", "zsh", "ksh"],
            || tree_sitter_bash::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("bash"),
        ),
        spec(
            Language::Kotlin,
            &["kt", "kts"],
            || tree_sitter_kotlin_ng::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("kotlin"),
        ),
        spec(
            Language::Swift,
            &["swift"],
            || tree_sitter_swift::LANGUAGE.into(),
            PrecedingComments,
            &["init"],
            &[],
            COMMON_BODY,
            queries!("swift"),
        ),
        spec(
            Language::Scala,
            &["scala", "sc"],
            || tree_sitter_scala::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("scala"),
        ),
        spec(Language::Lua, &["lua"], || tree_sitter_lua::LANGUAGE.into(), PrecedingComments, &["new"], &[], COMMON_BODY, queries!("lua")),
        spec(Language::Zig, &["zig"], || tree_sitter_zig::LANGUAGE.into(), PrecedingComments, &["init"], &[], COMMON_BODY, queries!("zig")),
        clauses(spec(
            Language::Elixir,
            &["ex", "exs"],
            || tree_sitter_elixir::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("elixir"),
        )),
        clauses(spec(
            Language::Haskell,
            &["hs"],
            || tree_sitter_haskell::LANGUAGE.into(),
            PrecedingComments,
            &[],
            // A function's type signature belongs to its span, as a decorator does.
            &["signature"],
            COMMON_BODY,
            queries!("haskell"),
        )),
        spec(Language::Sql, &["sql"], || tree_sitter_sequel::LANGUAGE.into(), PrecedingComments, &[], &[], COMMON_BODY, queries!("sql")),
        spec(
            Language::Hcl,
            &["tf", "tfvars", "hcl"],
            || tree_sitter_hcl::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("hcl"),
        ),
        spec(
            Language::Dart,
            &["dart"],
            || tree_sitter_dart::LANGUAGE.into(),
            PrecedingComments,
            &[],
            &["annotation"],
            COMMON_BODY,
            queries!("dart"),
        ),
        spec(Language::R, &["r"], || tree_sitter_r::LANGUAGE.into(), PrecedingComments, &["initialize"], &[], COMMON_BODY, queries!("r")),
        spec(Language::Julia, &["jl"], || tree_sitter_julia::LANGUAGE.into(), PrecedingString, &[], &[], COMMON_BODY, queries!("julia")),
        spec(
            Language::Ocaml,
            &["ml"],
            || tree_sitter_ocaml::LANGUAGE_OCAML.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("ocaml"),
        ),
        // Signatures share the implementation's queries: `val`, `type` and
        // `module type` read alike in both grammars.
        spec(
            Language::OcamlInterface,
            &["mli"],
            || tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE.into(),
            PrecedingComments,
            &[],
            &[],
            COMMON_BODY,
            queries!("ocaml"),
        ),
        spec(
            Language::ObjectiveC,
            &["mm"],
            || tree_sitter_objc::LANGUAGE.into(),
            PrecedingComments,
            &["init"],
            &[],
            COMMON_BODY,
            queries!("objc"),
        ),
        // Vue and Svelte components: their `<script>` blocks (JavaScript or
        // TypeScript, which the TypeScript grammar reads alike), mined as TypeScript.
        script_blocks(spec(
            Language::Vue,
            &["vue"],
            || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            PrecedingComments,
            &["constructor"],
            &["decorator"],
            COMMON_BODY,
            (
                concat!(include_str!("../queries/typescript/symbols.scm"), include_str!("../queries/vue/options.scm")),
                include_str!("../queries/typescript/references.scm"),
                include_str!("../queries/typescript/types.scm"),
            ),
        )),
        script_blocks(spec(
            Language::Svelte,
            &["svelte"],
            || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            PrecedingComments,
            &["constructor"],
            &["decorator"],
            COMMON_BODY,
            queries!("typescript" + "ecmascript"),
        )),
        structured(Language::Markdown, &["md", "markdown", "mdx"]),
        structured(Language::Rst, &["rst"]),
        structured(Language::AsciiDoc, &["adoc", "asciidoc"]),
        structured(Language::Yaml, &["yml", "yaml"]),
        structured(Language::Toml, &["toml"]),
        structured(Language::Json, &["json", "jsonc", "json5"]),
        structured(Language::Ini, &["ini", "cfg", "conf", "properties", "env"]),
        structured(Language::Dockerfile, &["dockerfile", "containerfile"]),
        structured(Language::Make, &["mk", "make"]),
        structured(Language::Text, &["txt", "text"]),
    ]
}

/// A format without a grammar: ken-mine splits it by headings or keys.
fn structured(language: Language, extensions: &'static [&'static str]) -> Spec {
    Spec {
        language,
        extensions,
        grammar: None,
        doc_style: DocStyle::PrecedingComments,
        constructor_names: &[],
        decorator_kinds: &[],
        body_fields: &[],
        clauses: false,
        script_blocks: false,
        symbols: "",
        references: "",
        types: "",
    }
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
    let grammar = spec.grammar.map(|g| g());
    let mut problems = Vec::new();
    let (mut symbols, mut references, mut types) = (None, None, None);
    if let Some(grammar) = &grammar {
        symbols = compile(grammar, spec.symbols, "symbols", spec.language, &mut problems);
        references = compile(grammar, spec.references, "references", spec.language, &mut problems);
        types = compile(grammar, spec.types, "types", spec.language, &mut problems);
    }
    LanguageConfig {
        language: spec.language,
        extensions: spec.extensions,
        grammar,
        doc_style: spec.doc_style,
        constructor_names: spec.constructor_names,
        decorator_kinds: spec.decorator_kinds,
        body_fields: spec.body_fields,
        clauses: spec.clauses,
        script_blocks: spec.script_blocks,
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

/// The language of a file, judged by its name or extension (case-insensitive);
/// `None` when neither is known (see [`classify`] for the fallback).
pub fn detect(path: &Path) -> Option<Language> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if let Some(language) = by_name(&name) {
        return Some(language);
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    specs().iter().find(|s| s.extensions.contains(&ext.as_str())).map(|s| s.language)
}

/// What to do with a file the walk found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detected {
    /// Index it as this language (`Text` when nothing more is known: line
    /// windows, if its content turns out to be text).
    Index(Language),
    /// Leave it out, counted under this reason (`binary`, `generated`, `data`).
    Skip(&'static str),
}

/// A file's fate by its name alone; content checks (NUL bytes, minified
/// lines, encoding) come later, when it is read.
pub fn classify(path: &Path) -> Detected {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    if GENERATED_NAMES.contains(&name.as_str()) || GENERATED_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return Detected::Skip("generated");
    }
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    if BINARY_EXTENSIONS.contains(&ext) {
        return Detected::Skip("binary");
    }
    if DATA_EXTENSIONS.contains(&ext) {
        return Detected::Skip("data");
    }
    if KEY_EXTENSIONS.contains(&ext) || KEY_NAMES.contains(&name.as_str()) {
        return Detected::Skip("keys");
    }
    Detected::Index(detect(path).unwrap_or(Language::Text))
}

/// `text` with everything outside its `<script>` blocks blanked: each
/// character but a newline becomes as many spaces as it has bytes, so the
/// script keeps its lines, columns and byte offsets. A component's template
/// and styles are not code; its `<script>` and `<script setup>` (or
/// `context="module"`) blocks are.
pub fn script_blocks(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let blank = |out: &mut String, part: &str| {
        for c in part.chars() {
            if c == '\n' {
                out.push('\n');
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
    };
    while let Some(open) = lower[at..].find("<script").map(|i| at + i) {
        // `<script>` or `<script lang="ts" setup>`, not `<scripts>`.
        let after = lower.as_bytes().get(open + 7).copied();
        let Some(tag_end) = lower[open..].find('>').map(|i| open + i + 1) else { break };
        if !matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
            blank(&mut out, &text[at..tag_end]);
            at = tag_end;
            continue;
        }
        let close = lower[tag_end..].find("</script").map_or(text.len(), |i| tag_end + i);
        blank(&mut out, &text[at..tag_end]);
        out.push_str(&text[tag_end..close]);
        at = close;
    }
    blank(&mut out, &text[at..]);
    out
}

/// Extensions several languages share, settled by content: a `.m` file or
/// a `.h` header is Objective-C when a line starts with one of these
/// (MATLAB's `.m` files stay text, C's headers C).
const BY_CONTENT: &[(&str, &[&str], Language)] = &[("m", OBJC_MARKERS, Language::ObjectiveC), ("h", OBJC_MARKERS, Language::ObjectiveC)];
const OBJC_MARKERS: &[&str] = &["@interface", "@implementation", "@protocol", "@class", "#import", "@import"];

/// Whether a file's content may decide its language ([`sniff`]) though its
/// name gives one.
pub fn content_decides(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    BY_CONTENT.iter().any(|(claimed, _, _)| ext.as_deref() == Some(*claimed))
}

/// The language a file's content says: one whose extension is shared is
/// settled by markers ([`BY_CONTENT`]); a script names its interpreter on
/// its first line (`#!/usr/bin/env bash`).
pub fn sniff(path: &Path, text: &str) -> Option<Language> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    for (claimed, markers, language) in BY_CONTENT {
        if ext.as_deref() == Some(*claimed) && text.lines().any(|l| markers.iter().any(|m| l.starts_with(m))) {
            return Some(*language);
        }
    }
    shebang(text)
}

fn shebang(text: &str) -> Option<Language> {
    let first = text.lines().next()?.strip_prefix("#!")?;
    let mut words = first.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    let program = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match program {
        "bash" | "sh" | "dash" | "zsh" | "ksh" | "bats" => Language::Bash,
        "python" | "pypy" => Language::Python,
        "node" | "nodejs" | "deno" => Language::JavaScript,
        "ruby" => Language::Ruby,
        "php" => Language::Php,
        "lua" | "luajit" => Language::Lua,
        "elixir" => Language::Elixir,
        "runghc" | "runhaskell" => Language::Haskell,
        "kotlin" => Language::Kotlin,
        "scala" => Language::Scala,
        "swift" => Language::Swift,
        "Rscript" => Language::R,
        "julia" => Language::Julia,
        "dart" => Language::Dart,
        _ => return None,
    })
}

/// Files known by name: build files, environment templates, licences.
fn by_name(name: &str) -> Option<Language> {
    Some(match name {
        "dockerfile" | "containerfile" => Language::Dockerfile,
        n if n.starts_with("dockerfile.") || n.ends_with(".dockerfile") => Language::Dockerfile,
        "makefile" | "gnumakefile" | "bsdmakefile" => Language::Make,
        ".env" | ".env.example" | ".env.sample" | ".env.template" | ".env.dist" | ".editorconfig" | "setup.cfg" | "tox.ini" => {
            Language::Ini
        }
        ".bashrc" | ".bash_profile" | ".profile" | ".zshrc" => Language::Bash,
        _ => return None,
    })
}

/// Lock files and build output: written by tools, not read by people.
const GENERATED_NAMES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "cargo.lock",
    "poetry.lock",
    "pipfile.lock",
    "uv.lock",
    "composer.lock",
    "gemfile.lock",
    "go.sum",
    "bun.lockb",
];
const GENERATED_SUFFIXES: &[&str] = &[".min.js", ".min.css", ".map", ".pb.go", "_pb2.py"];

const BINARY_EXTENSIONS: &[&str] = &[
    "png",
    "jpg",
    "jpeg",
    "gif",
    "bmp",
    "ico",
    "icns",
    "webp",
    "tif",
    "tiff",
    "psd",
    "svg",
    "svgz",
    "pdf",
    "zip",
    "gz",
    "tgz",
    "bz2",
    "xz",
    "zst",
    "7z",
    "rar",
    "tar",
    "jar",
    "war",
    "whl",
    "egg",
    "so",
    "dylib",
    "dll",
    "exe",
    "bin",
    "o",
    "a",
    "lib",
    "obj",
    "class",
    "pyc",
    "pyo",
    "pyd",
    "wasm",
    "woff",
    "woff2",
    "ttf",
    "otf",
    "eot",
    "mp3",
    "mp4",
    "wav",
    "ogg",
    "flac",
    "avi",
    "mov",
    "mkv",
    "webm",
    "sqlite",
    "sqlite3",
    "db",
    "pkl",
    "pickle",
    "npy",
    "npz",
    "h5",
    "onnx",
    "pt",
    "pth",
    "ckpt",
    "safetensors",
    "gguf",
    "node",
    "rlib",
    "crate",
    "deb",
    "rpm",
    "dmg",
    "iso",
];

/// Certificates and keys (test fixtures, mostly): base64 that no query
/// is about, whose every line BM25 would count as new words (requests
/// 2.32.3's 29 test certificates made most of its 9,700 terms), and
/// secrets an index should not copy.
const KEY_EXTENSIONS: &[&str] = &["pem", "crt", "cer", "csr", "key", "der", "p12", "pfx", "jks", "keystore", "srl", "gpg"];
const KEY_NAMES: &[&str] = &["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];

/// Tables of data: large, and not what a code search is for.
const DATA_EXTENSIONS: &[&str] = &["csv", "tsv", "parquet", "arrow", "feather", "avro", "xls", "xlsx", "ods", "log"];

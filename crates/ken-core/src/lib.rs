//! Plain data types shared by every Kenning crate.
//!
//! Nothing here does IO or knows about tree-sitter, SQLite or JSON wire shapes:
//! these are the nouns the rest of the workspace talks in.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A language Kenning can mine. The registry in `ken-lang` maps each one to a
/// grammar, file extensions and query files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    Rust,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    CSharp,
    C,
    Cpp,
    Ruby,
    Php,
    Bash,
    Kotlin,
    Swift,
    Scala,
    Lua,
    Zig,
    Elixir,
    Haskell,
    Sql,
    Hcl,
    Dart,
    R,
    Julia,
    Ocaml,
    /// OCaml signatures (`.mli`), mined with the OCaml interface grammar.
    OcamlInterface,
    ObjectiveC,
    /// Single-file components: their `<script>` blocks, mined as TypeScript.
    Vue,
    Svelte,
    /// Documents, chunked by heading.
    Markdown,
    Rst,
    AsciiDoc,
    /// Configuration, chunked by top-level key, table, stage or target.
    Yaml,
    Toml,
    Json,
    Ini,
    Dockerfile,
    Make,
    /// Any other text: line windows, searchable by BM25 and vectors.
    Text,
}

/// What a language's files hold, which decides how they are mined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Source code, mined with a tree-sitter grammar and queries.
    Code,
    /// Prose documents: sections by heading.
    Doc,
    /// Configuration: units by key, table, stage or target.
    Config,
    /// Plain text: line windows only.
    Text,
}

/// How a language names modules and brings names into scope: the rules
/// ken-mine names symbols by and ken-graph resolves references with. A new
/// language picks the one it shares, in [`Language::scoping`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scoping {
    /// Dotted modules from paths (`pkg/mod.py` is `pkg.mod`), relative imports.
    Python,
    /// `crate::a::b` from `src/` paths, `use` trees.
    Rust,
    /// Modules are paths (`src/a/index.ts` is `src/a`), imports name files.
    Js,
    /// A package is a directory; imports name package paths.
    Go,
    /// A declared package or module names the file's symbols; imports name
    /// a member (`a.b.C`) or all of them (`a.b.*`); members are in scope in
    /// methods.
    Java,
    /// Declared namespaces; `using` brings a whole namespace.
    CSharp,
    /// One global namespace: names resolve by scope and by being unique.
    C,
    /// One global namespace where modules and classes nest what they hold.
    Ruby,
    /// Declared namespaces with `\`; `use` names a member.
    Php,
    /// One namespace of functions; `source FILE` brings a file's functions.
    Shell,
    /// Modules are files; `import 'a.dart'` (relative to the importer) or
    /// `package:p/a.dart` (the package's `lib/a.dart`) brings every public
    /// name of the file, `as x` names it; members are in scope in methods.
    Dart,
    /// A file is a module named by its capitalized stem (`shapes.ml` is
    /// `Shapes`), known everywhere by that name; `open M` brings its names,
    /// `M.f` names a member, `module S = M` an alias.
    Ocaml,
    /// One database: tables, views and functions resolve by name (a
    /// schema-qualified `app.users` by its full name), apart from code's names.
    Sql,
    /// Terraform: a directory is one module whose files share a namespace;
    /// definitions are named as references spell them (`var.region`,
    /// `aws_instance.web`, `module.vpc`) and resolve by that name, in the
    /// referencing file's directory first.
    Terraform,
    /// Documents, configuration and text: nothing resolves into them.
    None,
}

impl Scoping {
    /// Separator of module paths and members, as references spell them.
    pub fn separator(self) -> &'static str {
        match self {
            Scoping::Rust | Scoping::C | Scoping::Ruby => "::",
            Scoping::Php => "\\",
            Scoping::Js | Scoping::Go => "/",
            _ => ".",
        }
    }

    /// Class members are in scope unqualified inside methods (Java `foo()`
    /// means `this.foo()`); in Python, Rust, JS and Go they are not.
    pub fn members_in_scope(self) -> bool {
        matches!(self, Scoping::Java | Scoping::CSharp | Scoping::C | Scoping::Ruby | Scoping::Dart)
    }

    /// Writing out an instance runs a constructor: not in Rust or Go, where
    /// a struct literal (`Version { major, .. }`) is the instance and calls
    /// no `new`.
    pub fn instantiation_runs_constructor(self) -> bool {
        !matches!(self, Scoping::Rust | Scoping::Go)
    }

    /// Definitions are named by a path whose head need not be a symbol (a
    /// SQL schema, Terraform's `var` and resource types): a receiver
    /// qualifies a definition's name without making it a member, and a
    /// reference whose qualifier names nothing is looked up by its whole
    /// qualified name.
    pub fn qualified_by_path(self) -> bool {
        matches!(self, Scoping::Sql | Scoping::Terraform)
    }
}

impl Language {
    pub const ALL: [Language; 40] = [
        Language::Python,
        Language::Rust,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Java,
        Language::CSharp,
        Language::C,
        Language::Cpp,
        Language::Ruby,
        Language::Php,
        Language::Bash,
        Language::Kotlin,
        Language::Swift,
        Language::Scala,
        Language::Lua,
        Language::Zig,
        Language::Elixir,
        Language::Haskell,
        Language::Sql,
        Language::Hcl,
        Language::Dart,
        Language::R,
        Language::Julia,
        Language::Ocaml,
        Language::OcamlInterface,
        Language::ObjectiveC,
        Language::Vue,
        Language::Svelte,
        Language::Markdown,
        Language::Rst,
        Language::AsciiDoc,
        Language::Yaml,
        Language::Toml,
        Language::Json,
        Language::Ini,
        Language::Dockerfile,
        Language::Make,
        Language::Text,
    ];

    /// Stable lower-case name, used in the index, on the CLI and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Rust => "rust",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Java => "java",
            Language::CSharp => "csharp",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Ruby => "ruby",
            Language::Php => "php",
            Language::Bash => "bash",
            Language::Kotlin => "kotlin",
            Language::Swift => "swift",
            Language::Scala => "scala",
            Language::Lua => "lua",
            Language::Zig => "zig",
            Language::Elixir => "elixir",
            Language::Haskell => "haskell",
            Language::Sql => "sql",
            Language::Hcl => "hcl",
            Language::Dart => "dart",
            Language::R => "r",
            Language::Julia => "julia",
            Language::Ocaml => "ocaml",
            Language::OcamlInterface => "ocaml_interface",
            Language::ObjectiveC => "objc",
            Language::Vue => "vue",
            Language::Svelte => "svelte",
            Language::Markdown => "markdown",
            Language::Rst => "rst",
            Language::AsciiDoc => "asciidoc",
            Language::Yaml => "yaml",
            Language::Toml => "toml",
            Language::Json => "json",
            Language::Ini => "ini",
            Language::Dockerfile => "dockerfile",
            Language::Make => "make",
            Language::Text => "text",
        }
    }

    pub fn family(self) -> Family {
        match self {
            Language::Markdown | Language::Rst | Language::AsciiDoc => Family::Doc,
            Language::Yaml | Language::Toml | Language::Json | Language::Ini | Language::Dockerfile | Language::Make => Family::Config,
            Language::Text => Family::Text,
            _ => Family::Code,
        }
    }

    pub fn scoping(self) -> Scoping {
        match self {
            Language::Python => Scoping::Python,
            Language::Rust => Scoping::Rust,
            Language::JavaScript | Language::TypeScript | Language::Tsx | Language::Vue | Language::Svelte => Scoping::Js,
            Language::Go => Scoping::Go,
            Language::Java | Language::Kotlin | Language::Scala | Language::Haskell => Scoping::Java,
            Language::CSharp => Scoping::CSharp,
            Language::C | Language::Cpp | Language::Swift | Language::Zig | Language::Lua | Language::ObjectiveC => Scoping::C,
            Language::Ocaml | Language::OcamlInterface => Scoping::Ocaml,
            Language::Ruby | Language::Elixir => Scoping::Ruby,
            Language::Php => Scoping::Php,
            Language::Bash | Language::R => Scoping::Shell,
            Language::Julia => Scoping::Ruby,
            Language::Dart => Scoping::Dart,
            Language::Sql => Scoping::Sql,
            Language::Hcl => Scoping::Terraform,
            _ => Scoping::None,
        }
    }

    pub fn from_name(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        let alias = match lower.as_str() {
            "py" => "python",
            "rs" => "rust",
            "js" => "javascript",
            "ts" => "typescript",
            "c#" | "cs" => "csharp",
            "c++" | "cxx" => "cpp",
            "rb" => "ruby",
            "sh" | "shell" => "bash",
            "kt" | "kts" => "kotlin",
            "ex" | "exs" => "elixir",
            "hs" => "haskell",
            "terraform" | "tf" => "hcl",
            "jl" => "julia",
            "ml" => "ocaml",
            "mli" => "ocaml_interface",
            "objective-c" | "objectivec" | "obj-c" => "objc",
            "md" => "markdown",
            "adoc" => "asciidoc",
            "yml" => "yaml",
            "makefile" => "make",
            other => other,
        };
        Language::ALL.into_iter().find(|l| l.name() == alias)
    }

    /// [`Language::from_name`], or an error that lists the languages.
    pub fn from_name_or_list(name: &str) -> Result<Language, String> {
        Language::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
            format!("unknown language `{name}`; use one of: {}", known.join(", "))
        })
    }

    /// Separator between the parts of a qualified name in this language.
    pub fn path_separator(self) -> &'static str {
        match self {
            Language::Rust | Language::Cpp | Language::C => "::",
            Language::Php => "\\",
            // A document's sections and a configuration's keys, after the file's path.
            l if l.family() != Family::Code => " > ",
            _ => ".",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, not `write_str`: `{:<11}` in a table must line up.
        f.pad(self.name())
    }
}

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name { $($(#[$vmeta])* #[serde(rename = $text)] $variant),* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}

string_enum! {
    /// What a mined symbol is.
    SymbolKind {
        Module => "module",
        Class => "class",
        Struct => "struct",
        Interface => "interface",
        Trait => "trait",
        Enum => "enum",
        Function => "function",
        Method => "method",
        Constructor => "constructor",
        Field => "field",
        Constant => "constant",
        /// A section of a document, under its heading.
        Doc => "doc",
        /// A unit of configuration: a top-level key or table, a job, a stage, a target.
        Config => "config",
    }
}

impl SymbolKind {
    /// [`SymbolKind::parse`], or an error that lists the kinds.
    pub fn parse_or_list(text: &str) -> Result<SymbolKind, String> {
        SymbolKind::parse(text).ok_or_else(|| {
            let known: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
            format!("unknown kind `{text}`; use one of: {}", known.join(", "))
        })
    }

    /// Kinds whose members are methods and fields: the "class" of RepoGPT's context header.
    pub fn is_type(self) -> bool {
        matches!(self, SymbolKind::Class | SymbolKind::Struct | SymbolKind::Interface | SymbolKind::Trait | SymbolKind::Enum)
    }

    /// Kinds that hold executable code: the "method" of RepoGPT's context header.
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method | SymbolKind::Constructor)
    }
}

string_enum! {
    /// What a raw (unresolved) reference is. The graph layer resolves them into relations.
    RefKind {
        Call => "call",
        Import => "import",
        Inherit => "inherit",
        Instantiate => "instantiate",
        FieldUse => "field_use",
    }
}

string_enum! {
    /// A labelled edge of the dependency graph (CodePlan, Figure 4), in its
    /// forward direction. Each has an inverse: see [`Relation::inverse_name`].
    Relation {
        /// A scope and a symbol declared directly in it (inverse ChildOf).
        ParentOf => "parent_of",
        /// A constructor and the class it constructs (inverse ConstructedBy).
        Construct => "construct",
        /// A module or scope and what it imports (inverse ImportedBy).
        Imports => "imports",
        /// A class and its base class or implemented interface (inverse BaseClassOf).
        DerivedClassOf => "derived_class_of",
        /// A method and the base-class method it overrides (inverse OverriddenBy).
        Overrides => "overrides",
        /// A function or method and one it calls (inverse CalledBy).
        Calls => "calls",
        /// Code and the class it creates an object of (inverse InstantiatedBy).
        Instantiates => "instantiates",
        /// Code and the field or attribute it reads or writes (inverse UsedBy).
        Uses => "uses",
    }
}

impl Relation {
    /// CodePlan's label for the forward direction.
    pub fn label(self) -> &'static str {
        match self {
            Relation::ParentOf => "ParentOf",
            Relation::Construct => "Construct",
            Relation::Imports => "Imports",
            Relation::DerivedClassOf => "DerivedClassOf",
            Relation::Overrides => "Overrides",
            Relation::Calls => "Calls",
            Relation::Instantiates => "Instantiates",
            Relation::Uses => "Uses",
        }
    }

    /// CodePlan's label for the inverse direction.
    pub fn inverse_name(self) -> &'static str {
        match self {
            Relation::ParentOf => "ChildOf",
            Relation::Construct => "ConstructedBy",
            Relation::Imports => "ImportedBy",
            Relation::DerivedClassOf => "BaseClassOf",
            Relation::Overrides => "OverriddenBy",
            Relation::Calls => "CalledBy",
            Relation::Instantiates => "InstantiatedBy",
            Relation::Uses => "UsedBy",
        }
    }
}

string_enum! {
    /// How an edge's target was found.
    Resolution {
        /// Scope, import or qualified-name lookup; no guessing.
        Exact => "exact",
        /// Through the inferred type of a receiver (`self`, an annotation, a constructor assignment, a return type).
        TypeInferred => "type_inferred",
        /// The only symbol in the repository with that name and a fitting kind.
        UniqueName => "unique_name",
        /// Not found in the repository (a library, a builtin, dynamic code); the name is kept.
        Unresolved => "unresolved",
    }
}

/// A name whose type is known from the source: a parameter or variable
/// annotation, or an assignment from a call (`x = Session()`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// Innermost symbol whose span holds the binding; 0 for the module.
    pub scope: u32,
    /// The bound name as written: `session`, `self.session`.
    pub name: String,
    /// A type, a callee or a name, as written; `source` says which.
    pub type_text: String,
    pub source: BindingSource,
    pub line: u32,
}

string_enum! {
    /// Where a binding's type comes from.
    BindingSource {
        /// `type_text` is a type annotation.
        Annotation => "annotation",
        /// `type_text` is a callee: the type is its return type, or the class itself.
        CallResult => "call",
        /// `type_text` is another name whose type this one shares (`self.s = s`).
        Alias => "alias",
    }
}

/// A region of a file. Lines and columns are 1-based; columns count bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl Span {
    pub fn contains(&self, other: &Span) -> bool {
        self.start_byte <= other.start_byte && other.end_byte <= self.end_byte
    }
    pub fn line_count(&self) -> u32 {
        self.end_line.saturating_sub(self.start_line) + 1
    }
}

/// Docstring text: what the miner cleans from a definition's literal, and
/// the store cleans again where it keeps a docstring as its place in the file.
pub mod docstring {
    /// A Python string literal's body: its prefix letters and quotes off.
    pub fn strip_python_quotes(raw: &str) -> &str {
        let body = raw.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
        for quote in ["\"\"\"", "'''", "\"", "'"] {
            if let Some(inner) = body.strip_prefix(quote) {
                return inner.strip_suffix(quote).unwrap_or(inner);
            }
        }
        body
    }

    /// A Python docstring as `inspect.cleandoc` reads its literal.
    pub fn python_docstring(raw: &str) -> String {
        clean_doc(strip_python_quotes(raw))
    }

    /// A comment's lines without their comment syntax (`///`, `/** */`,
    /// `#`, `--`, roxygen's `#'`, OCaml's `(** *)`, Ruby's `=begin`).
    pub fn strip_comment(comment: &str) -> Vec<String> {
        let comment = comment.trim();
        if let Some(block) = comment.strip_prefix("/*") {
            let block = block.strip_suffix("*/").unwrap_or(block);
            let block = block.strip_prefix('*').unwrap_or(block).strip_prefix('!').unwrap_or(block);
            return block
                .lines()
                .map(|l| {
                    let t = l.trim_start();
                    t.strip_prefix('*').map(|r| r.strip_prefix(' ').unwrap_or(r)).unwrap_or(t).to_string()
                })
                .collect();
        }
        // OCaml: `(** doc *)`.
        if let Some(block) = comment.strip_prefix("(*") {
            let block = block.strip_suffix("*)").unwrap_or(block);
            let block = block.strip_prefix('*').unwrap_or(block);
            return block.lines().map(|l| l.trim().to_string()).collect();
        }
        if let Some(block) = comment.strip_prefix("=begin") {
            return block.strip_suffix("=end").unwrap_or(block).lines().map(str::to_string).collect();
        }
        comment
            .lines()
            .map(|l| {
                let t = l.trim_start();
                let roxygen = t.starts_with("#'");
                let t = t.trim_start_matches('/').trim_start_matches('!').trim_start_matches('#');
                // R's roxygen comments: `#' doc`.
                let t = if roxygen { &t[1..] } else { t };
                // Haskell and Lua line comments: `-- | doc`, `--- doc`.
                let t = match t.strip_prefix("--") {
                    Some(rest) => rest.trim_start_matches('-').trim_start().trim_start_matches(['|', '^']),
                    None => t,
                };
                t.strip_prefix(' ').unwrap_or(t).to_string()
            })
            .collect()
    }

    /// The doc comment the miner reads from comments that sit together
    /// (`raw` from the first comment's start to the last one's end).
    pub fn comment_docstring(raw: &str) -> String {
        clean_doc(&strip_comment(raw).join("\n"))
    }

    /// A section's docstring: its first paragraph, each line trimmed and
    /// joined by a space, at most 400 characters; with the bytes of
    /// `lines` it read (each line and its newline).
    pub fn first_paragraph<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<(String, usize)> {
        let mut text = String::new();
        let mut read = 0;
        for line in lines {
            read += line.len() + 1;
            let t = line.trim();
            if t.is_empty() {
                if text.is_empty() {
                    continue;
                }
                break;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(t);
            if text.len() > 400 {
                break;
            }
        }
        let text: String = text.chars().take(400).collect();
        (!text.is_empty()).then_some((text, read))
    }

    /// Trims and dedents like Python's `inspect.cleandoc`.
    pub fn clean_doc(text: &str) -> String {
        let lines: Vec<&str> = text.lines().collect();
        let indent = lines.iter().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
        let mut out: Vec<&str> = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                out.push(line.trim());
            } else {
                out.push(line.get(indent..).unwrap_or(line.trim_start()).trim_end());
            }
        }
        while out.first().is_some_and(|l| l.is_empty()) {
            out.remove(0);
        }
        while out.last().is_some_and(|l| l.is_empty()) {
            out.pop();
        }
        out.join("\n")
    }
}

/// One function, class, method, field… mined from a file (MutaGReP's `Symbol`, generalised).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub kind: SymbolKind,
    pub name: String,
    /// Path of the symbol inside its file: parents and name, e.g. `Model.train`.
    /// Kept apart from the module so a renamed file needs no re-mining.
    pub local_path: String,
    /// The canonicalName: module path plus `local_path`.
    pub qualified_name: String,
    pub signature: String,
    pub docstring: Option<String>,
    /// The whole definition, decorators and attributes included.
    pub span: Span,
    /// Where the name itself is: what an editor or language server points at.
    pub name_line: u32,
    pub name_col: u32,
    /// Index of the parent symbol in the same file's symbol list.
    pub parent: Option<u32>,
    /// Declared return type, as written (`Optional[Session]`, `-> Self`).
    pub return_type: Option<String>,
}

/// A use of a name, as written, before any resolution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawReference {
    pub kind: RefKind,
    /// The referenced name: callee, imported name, base class, type or field.
    pub name: String,
    /// Receiver expression (`self`, `os.path`) or, for imports, the module path.
    pub qualifier: Option<String>,
    /// Local alias of an import (`import numpy as np` gives `np`).
    pub alias: Option<String>,
    pub line: u32,
    pub col: u32,
    /// Innermost symbol whose span holds the reference; 0 (the module) for top-level code.
    pub enclosing: u32,
}

/// A class or method named in a chunk's context header, with its lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkContext {
    pub symbol: u32,
    pub name: String,
    pub start_line: u32,
    pub end_line: u32,
    /// True when the chunk lies inside it; false when it is only the last one before.
    pub encloses: bool,
}

/// A piece of a file sized for embedding and display, with RepoGPT's context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
    /// Symbol this chunk is named after (its canonicalName); `None` means the module.
    pub symbol: Option<u32>,
    pub class: Option<ChunkContext>,
    pub method: Option<ChunkContext>,
}

/// Everything mined from one file. Produced without IO by `ken-mine`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileAnalysis {
    /// Module path the file defines (`requests.sessions`, `tokio::runtime`).
    pub module: String,
    /// Package or namespace the file declares, when the language has one.
    pub declared_package: Option<String>,
    pub symbols: Vec<Symbol>,
    pub references: Vec<RawReference>,
    /// Names with a known type, for receiver type inference.
    pub bindings: Vec<Binding>,
    pub chunks: Vec<Chunk>,
    /// Number of ERROR and MISSING nodes tree-sitter recovered from.
    pub parse_errors: u32,
    pub lines: u32,
}

/// Budget for the chunk splitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkBudget {
    pub max_chars: u32,
    pub max_lines: u32,
    /// Lines shared by consecutive windows when a node has to be cut by lines.
    pub overlap_lines: u32,
}

impl Default for ChunkBudget {
    fn default() -> Self {
        ChunkBudget { max_chars: 1500, max_lines: 40, overlap_lines: 10 }
    }
}

/// The text a caught panic was raised with, for a per-file error report.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "panic".to_string(),
    }
}

/// A request to stop a long run, checked between batches; clones share it.
/// A cancelled run keeps what it committed, and the next run resumes.
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    own: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The flags of the cancels this one is a child of: any of them stops it too.
    parents: Vec<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Cancel {
    pub fn cancel(&self) {
        self.own.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        std::iter::once(&self.own).chain(&self.parents).any(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// A cancel of its own that this one's cancelling (or its parents') stops
    /// as well: one step of a long job, stopped alone or with the job.
    pub fn child(&self) -> Cancel {
        let mut parents = self.parents.clone();
        parents.push(self.own.clone());
        Cancel { own: Default::default(), parents }
    }
}

/// Failure injection for crash tests: when `KEN_FAILPOINT` names this point,
/// the process aborts here as a `kill -9` would (no unwinding, no cleanup).
/// Reading the variable once keeps the check free on the hot path.
pub fn failpoint(name: &str) {
    static ARMED: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if ARMED.get_or_init(|| std::env::var("KEN_FAILPOINT").ok()).as_deref() == Some(name) {
        eprintln!("failpoint {name}: aborting");
        std::process::abort();
    }
}

#[cfg(test)]
mod cancel_tests {
    use super::Cancel;

    #[test]
    fn a_child_stops_alone_or_with_its_parents() {
        let job = Cancel::default();
        let step = job.child();
        let inner = step.child();
        step.cancel();
        assert!(step.is_cancelled() && inner.is_cancelled() && !job.is_cancelled());
        let next = job.child();
        assert!(!next.is_cancelled());
        job.cancel();
        assert!(next.is_cancelled() && next.child().is_cancelled());
    }
}

//! The whole repository's symbol table, as resolution needs it: symbols by
//! id, name and qualified name; modules; each file's imports; type bindings
//! by scope; and the class hierarchy. Built once per link run, read-only
//! afterwards (so files resolve in parallel).

use ken_core::{Scoping, SymbolKind};
use ken_store::{BindingRow, GraphFile, GraphSymbol, RefRow};
use rustc_hash::{FxHashMap, FxHashSet};

/// Index into [`Program::syms`].
pub(crate) type Sym = usize;

/// Module paths (with their symbol) by language scoping and last `/` segment.
type ModulesByLast = FxHashMap<(Scoping, Box<str>), Vec<(Box<str>, Sym)>>;

/// Lists keyed by an owner and a name, looked up by `&str` without allocating.
pub(crate) struct NameMap<K>(FxHashMap<K, FxHashMap<Box<str>, Vec<usize>>>);

impl<K: std::hash::Hash + Eq> NameMap<K> {
    fn new() -> NameMap<K> {
        NameMap(FxHashMap::default())
    }

    fn push(&mut self, key: K, name: &str, value: usize) {
        self.0.entry(key).or_default().entry(name.into()).or_default().push(value);
    }

    pub fn get(&self, key: &K, name: &str) -> &[usize] {
        self.0.get(key).and_then(|m| m.get(name)).map_or(&[], Vec::as_slice)
    }
}

/// What an import binds in a file: `local` names `member` of `module`, the
/// module itself (`member: None`), or everything in it (`wildcard`).
#[derive(Clone, Debug)]
pub(crate) struct Import {
    pub local: Option<String>,
    pub module: String,
    pub member: Option<String>,
    pub wildcard: bool,
    /// The raw reference, for the Imports edge.
    pub at: usize,
}

pub(crate) struct FileInfo {
    pub row: GraphFile,
    pub family: Scoping,
    pub module_sym: Option<Sym>,
    /// Local name to imports (the last one wins, like the language).
    pub imports: Vec<Import>,
    pub import_by_local: FxHashMap<String, usize>,
    /// Python `__init__.py`: relative imports start from the module itself.
    pub is_package_init: bool,
}

pub(crate) struct Program {
    pub files: Vec<FileInfo>,
    pub file_of_id: FxHashMap<i64, usize>,
    pub syms: Vec<GraphSymbol>,
    pub kinds: Vec<SymbolKind>,
    /// File index of each symbol.
    pub sym_file: Vec<usize>,
    pub sym_of_id: FxHashMap<i64, Sym>,
    pub parent: Vec<Option<Sym>>,
    /// Children of a symbol, by name.
    pub children: NameMap<Sym>,
    pub children_of: FxHashMap<Sym, Vec<Sym>>,
    /// Symbols of each file, in order.
    pub file_syms: Vec<Vec<Sym>>,
    pub by_qualified: FxHashMap<String, Vec<Sym>>,
    /// Every symbol's name and the first segment of every qualified name:
    /// a receiver spelled with none of them names nothing of ours.
    pub known_heads: rustc_hash::FxHashSet<String>,
    /// Symbols that can be named from elsewhere without a receiver (types,
    /// functions, constants), by (family, name), for unique-name fallback.
    pub global_by_name: NameMap<Scoping>,
    /// Methods and fields by (family, name), for receiver-less fallback.
    pub members_by_name: NameMap<Scoping>,
    /// Modules by (family, module path): their module symbols.
    pub modules: NameMap<Scoping>,
    /// Module paths by their last `/` segment, for [`Program::module_ending_with`].
    modules_by_last: ModulesByLast,
    /// Go and Java packages, C# namespaces: files by package.
    pub packages: NameMap<Scoping>,
    /// Type bindings by scope symbol, in line order.
    pub bindings: FxHashMap<Sym, Vec<BindingRow>>,
    /// Inherit references by class.
    pub inherits: FxHashMap<Sym, Vec<RefRow>>,
    /// Resolved bases of each class (class hierarchy analysis), filled by [`Program::resolve_bases`].
    pub bases: FxHashMap<Sym, Vec<Sym>>,
    /// The inverse of `bases`.
    pub derived: FxHashMap<Sym, Vec<Sym>>,
    pub import_refs: Vec<RefRow>,
}

impl Program {
    pub fn build(
        files: Vec<GraphFile>,
        syms: Vec<GraphSymbol>,
        imports: Vec<RefRow>,
        inherits: Vec<RefRow>,
        bindings: Vec<BindingRow>,
    ) -> Program {
        let file_of_id: FxHashMap<i64, usize> = files.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
        let sym_of_id: FxHashMap<i64, Sym> = syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let kinds: Vec<SymbolKind> = syms.iter().map(|s| s.kind).collect();
        let sym_file: Vec<usize> = syms.iter().map(|s| file_of_id.get(&s.file_id).copied().unwrap_or(0)).collect();
        let mut parent: Vec<Option<Sym>> = syms.iter().map(|s| s.parent_id.and_then(|p| sym_of_id.get(&p).copied())).collect();
        let mut infos: Vec<FileInfo> = files
            .into_iter()
            .map(|row| {
                let language = row.language;
                let is_package_init = row.path.ends_with("__init__.py") || row.path.ends_with("__init__.pyi");
                FileInfo {
                    family: language.scoping(),
                    row,
                    module_sym: None,
                    imports: Vec::new(),
                    import_by_local: FxHashMap::default(),
                    is_package_init,
                }
            })
            .collect();

        adopt_methods(&syms, &kinds, &sym_file, &infos, &mut parent);

        let mut children: NameMap<Sym> = NameMap::new();
        let mut children_of: FxHashMap<Sym, Vec<Sym>> = FxHashMap::default();
        let mut file_syms: Vec<Vec<Sym>> = vec![Vec::new(); infos.len()];
        let mut by_qualified: FxHashMap<String, Vec<Sym>> = FxHashMap::default();
        let mut known_heads: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
        let mut global_by_name: NameMap<Scoping> = NameMap::new();
        let mut members_by_name: NameMap<Scoping> = NameMap::new();
        let mut modules: NameMap<Scoping> = NameMap::new();
        let mut modules_by_last: ModulesByLast = FxHashMap::default();
        let mut add_module = |family: Scoping, name: &str, i: Sym| {
            modules.push(family, name, i);
            let last = name.rsplit('/').next().unwrap_or(name);
            modules_by_last.entry((family, last.into())).or_default().push((name.into(), i));
        };
        let mut packages: NameMap<Scoping> = NameMap::new();
        for (i, s) in syms.iter().enumerate() {
            let file = &mut infos[sym_file[i]];
            let family = file.family;
            by_qualified.entry(s.qualified_name.clone()).or_default().push(i);
            if let Some(head) = s.qualified_name.split(['.', ':', '/']).find(|h| !h.is_empty())
                && !known_heads.contains(head)
            {
                known_heads.insert(head.to_string());
            }
            if !known_heads.contains(&s.name) {
                known_heads.insert(s.name.clone());
            }
            if let Some(p) = parent[i] {
                children.push(p, &s.name, i);
                children_of.entry(p).or_default().push(i);
            }
            file_syms[sym_file[i]].push(i);
            match kinds[i] {
                SymbolKind::Module => {
                    if parent[i].is_none() && file.module_sym.is_none() {
                        file.module_sym = Some(i);
                        add_module(family, &file.row.module, i);
                    } else if parent[i].is_some() {
                        // A module declared in a file (Ruby `module`, Elixir
                        // `defmodule`, Rust `mod x {}`): a module by its
                        // qualified name, and a name in scope.
                        add_module(family, &s.qualified_name, i);
                        global_by_name.push(family, &s.name, i);
                    }
                }
                SymbolKind::Method | SymbolKind::Constructor | SymbolKind::Field => {
                    members_by_name.push(family, &s.name, i);
                }
                _ => {
                    let top = parent[i].is_none_or(|p| kinds[p] == SymbolKind::Module);
                    if top || kinds[i].is_type() {
                        global_by_name.push(family, &s.name, i);
                    }
                }
            }
        }
        for (i, f) in infos.iter().enumerate() {
            if let Some(pkg) = &f.row.package {
                packages.push(f.family, pkg, i);
            }
        }

        let mut program = Program {
            files: infos,
            file_of_id,
            syms,
            kinds,
            sym_file,
            sym_of_id,
            parent,
            children,
            children_of,
            file_syms,
            by_qualified,
            known_heads,
            global_by_name,
            members_by_name,
            modules,
            modules_by_last,
            packages,
            bindings: FxHashMap::default(),
            inherits: FxHashMap::default(),
            bases: FxHashMap::default(),
            derived: FxHashMap::default(),
            import_refs: imports,
        };
        for b in bindings {
            if let Some(&scope) = program.sym_of_id.get(&b.scope_id) {
                program.bindings.entry(scope).or_default().push(b);
            }
        }
        for list in program.bindings.values_mut() {
            list.sort_by_key(|b| b.line);
        }
        for r in inherits {
            if let Some(&class) = program.sym_of_id.get(&r.enclosing_id) {
                program.inherits.entry(class).or_default().push(r);
            }
        }
        let interpreted: Vec<(usize, Vec<Import>)> = program
            .import_refs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let &fi = program.file_of_id.get(&r.file_id)?;
                Some((fi, interpret_import(&program.files[fi], r, i)))
            })
            .collect();
        for (fi, imports) in interpreted {
            for import in imports {
                let file = &mut program.files[fi];
                if let Some(local) = &import.local {
                    file.import_by_local.insert(local.clone(), file.imports.len());
                }
                file.imports.push(import);
            }
        }
        program
    }

    pub fn children_named(&self, s: Sym, name: &str) -> &[Sym] {
        self.children.get(&s, name)
    }

    /// The nearest enclosing type of a symbol (itself included).
    pub fn enclosing_type(&self, mut s: Sym) -> Option<Sym> {
        for _ in 0..32 {
            if self.kinds[s].is_type() {
                return Some(s);
            }
            s = self.parent[s]?;
        }
        None
    }

    /// The enclosing function, class or module of a symbol: where a
    /// reference from a field initializer or constant "happens".
    pub fn code_owner(&self, mut s: Sym) -> Sym {
        for _ in 0..32 {
            match self.kinds[s] {
                SymbolKind::Field | SymbolKind::Constant => match self.parent[s] {
                    Some(p) => s = p,
                    None => return s,
                },
                _ => return s,
            }
        }
        s
    }

    /// The module symbols of `module` (several for a Go package).
    pub fn module_syms(&self, family: Scoping, module: &str) -> &[Sym] {
        self.modules.get(&family, module)
    }

    /// The one module whose path ends with `/tail`, when exactly one does
    /// (a Go module kept below the repository's root: `go/geo` for the
    /// import `example.com/app/geo`).
    pub fn module_ending_with(&self, family: Scoping, tail: &str) -> Option<Sym> {
        let last = tail.rsplit('/').next().unwrap_or(tail);
        let candidates = self.modules_by_last.get(&(family, last.into()))?;
        let mut found = candidates.iter().filter(|(name, _)| name.strip_suffix(tail).is_some_and(|head| head.ends_with('/')));
        let (name, sym) = found.next()?;
        // One module, though a file module may be listed once per symbol of the path.
        if found.any(|(other, _)| other != name) { None } else { Some(*sym) }
    }
}

/// Methods defined apart from their type's file (an Objective-C
/// `@implementation` beside its header's `@interface`, a Go method in
/// another file of the package) are mined under their file's module: each
/// joins the one type of its family whose qualified name is the method's
/// without its last part (`Circle.area` joins `Circle`).
fn adopt_methods(syms: &[GraphSymbol], kinds: &[SymbolKind], sym_file: &[usize], files: &[FileInfo], parent: &mut [Option<Sym>]) {
    let mut types: FxHashMap<(Scoping, &str), Vec<Sym>> = FxHashMap::default();
    for (i, s) in syms.iter().enumerate() {
        if kinds[i].is_type() {
            types.entry((files[sym_file[i]].family, s.qualified_name.as_str())).or_default().push(i);
        }
    }
    for (i, s) in syms.iter().enumerate() {
        let on_module = parent[i].is_some_and(|p| kinds[p] == SymbolKind::Module && parent[p].is_none());
        if !on_module || !matches!(kinds[i], SymbolKind::Method | SymbolKind::Constructor) {
            continue;
        }
        let file = &files[sym_file[i]];
        let Some(head) = s.qualified_name.strip_suffix(s.name.as_str()).and_then(|h| h.strip_suffix(file.row.language.path_separator()))
        else {
            continue;
        };
        if let Some([only]) = types.get(&(file.family, head)).map(Vec::as_slice)
            && sym_file[*only] != sym_file[i]
        {
            parent[i] = Some(*only);
        }
    }
}

/// Turns one mined import into what it binds, per language.
fn interpret_import(file: &FileInfo, r: &RefRow, at: usize) -> Vec<Import> {
    let name = r.name.as_str();
    let alias = r.alias.clone();
    let import =
        |local: Option<String>, module: String, member: Option<String>, wildcard: bool| Import { local, module, member, wildcard, at };
    match file.family {
        Scoping::Python => match &r.qualifier {
            None => {
                let local = alias.clone().or_else(|| name.split('.').next().map(str::to_string));
                let module = if alias.is_some() { name.to_string() } else { name.split('.').next().unwrap_or(name).to_string() };
                let mut out = vec![import(local, module, None, false)];
                if alias.is_none() && name.contains('.') {
                    // `import a.b.c` also loads a.b.c: keep it for the Imports edge.
                    out.push(import(None, name.to_string(), None, false));
                }
                out
            }
            Some(q) => {
                let module = python_absolute(file, q);
                if name == "*" {
                    vec![import(None, module, None, true)]
                } else {
                    vec![import(Some(alias.unwrap_or_else(|| name.to_string())), module, Some(name.to_string()), false)]
                }
            }
        },
        Scoping::Js => match &r.qualifier {
            Some(src) => {
                let module = js_module(&file.row.path, src);
                if name == "*" {
                    match alias {
                        Some(a) => vec![import(Some(a), module, None, false)],
                        None => vec![import(None, module, None, true)],
                    }
                } else {
                    vec![import(Some(alias.unwrap_or_else(|| name.to_string())), module, Some(name.to_string()), false)]
                }
            }
            // `const Pool = require('./pool')` binds `module.exports`, what
            // a default import binds; a bare `require('./x')` binds nothing.
            None => {
                let module = js_module(&file.row.path, name);
                let member = alias.is_some().then(|| "default".to_string());
                vec![import(alias, module, member, false)]
            }
        },
        Scoping::Rust => {
            let q = r.qualifier.as_deref().unwrap_or("");
            let module = rust_absolute(&file.row.module, q);
            if name == "*" {
                vec![import(None, module, None, true)]
            } else if name == "self" {
                let local = alias.or_else(|| module.rsplit("::").next().map(str::to_string));
                vec![import(local, module, None, false)]
            } else if q.is_empty() {
                // `mod shapes;` and `use shapes;` name a child of this module.
                let module = rust_absolute(&file.row.module, &format!("self::{name}"));
                vec![import(Some(alias.unwrap_or_else(|| name.to_string())), module, None, false)]
            } else {
                vec![import(Some(alias.unwrap_or_else(|| name.to_string())), module, Some(name.to_string()), false)]
            }
        }
        Scoping::Go => {
            let path = name.trim_matches('"');
            match alias.as_deref() {
                Some(".") => vec![import(None, path.to_string(), None, true)],
                Some("_") => vec![import(None, path.to_string(), None, false)],
                Some(a) => vec![import(Some(a.to_string()), path.to_string(), None, false)],
                None => vec![import(path.rsplit('/').next().map(str::to_string), path.to_string(), None, false)],
            }
        }
        Scoping::Java | Scoping::Php => match &r.qualifier {
            Some(q) if name == "*" => vec![import(None, q.clone(), None, true)],
            Some(q) => vec![import(Some(alias.unwrap_or_else(|| name.to_string())), q.clone(), Some(name.to_string()), false)],
            None => vec![import(alias, name.to_string(), None, false)],
        },
        Scoping::CSharp => match alias {
            Some(a) => vec![import(Some(a), name.to_string(), None, false)],
            None => vec![import(None, name.to_string(), None, true)],
        },
        Scoping::C => match alias {
            // Zig `const util = @import("util.zig")`, Lua `local util =
            // require("app.util")`: the alias names that file's module.
            Some(a) => {
                let file = name.trim_matches(['"', '\'']).trim_start_matches("./");
                let module = match file.strip_suffix(".zig").or_else(|| file.strip_suffix(".lua")) {
                    Some(stem) => stem.to_string(),
                    None => file.replace('.', "/"),
                };
                vec![import(Some(a), module, None, false)]
            }
            None => vec![import(None, name.to_string(), None, false)],
        },
        Scoping::Ruby => match &r.qualifier {
            // Elixir: `import Enum` brings every function of the module.
            Some(q) if name == "*" => vec![import(None, q.clone(), None, true)],
            // `alias Shop.{Item, Pricing}`: `Item` names `Shop.Item`.
            Some(q) => vec![import(Some(alias.unwrap_or_else(|| name.to_string())), format!("{q}.{name}"), None, false)],
            // `alias Shop.Pricing`: `Pricing` names it (a Ruby `require` names a file).
            None if name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                let local = alias.unwrap_or_else(|| name.rsplit('.').next().unwrap_or(name).to_string());
                vec![import(Some(local), name.to_string(), None, false)]
            }
            None => vec![import(None, name.to_string(), None, false)],
        },
        // `source lib/util.sh` brings in every function of that file.
        Scoping::Shell => {
            let file = name.trim_matches(['"', '\'']).trim_start_matches("./");
            let module = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
            vec![import(None, module.to_string(), None, true)]
        }
        // `import 'shapes.dart'` brings every public name of that file; `as x` names it.
        Scoping::Dart => {
            let module = dart_module(&file.row.path, name);
            match alias {
                Some(a) => vec![import(Some(a), module, None, false)],
                None => vec![import(None, module, None, true)],
            }
        }
        // `open M` brings every name of M; `module U = Util` names Util as U.
        Scoping::Ocaml => match (&r.qualifier, alias) {
            (Some(q), _) if name == "*" => vec![import(None, q.clone(), None, true)],
            (_, Some(a)) => vec![import(Some(a), name.to_string(), None, false)],
            _ => vec![import(None, name.to_string(), None, false)],
        },
        Scoping::Sql | Scoping::Terraform | Scoping::None => Vec::new(),
    }
}

/// `from ..x import y` in `a/b/c.py` names module `a.x`.
pub(crate) fn python_absolute(file: &FileInfo, q: &str) -> String {
    let dots = q.chars().take_while(|c| *c == '.').count();
    if dots == 0 {
        return q.to_string();
    }
    let rest = &q[dots..];
    let mut parts: Vec<&str> = file.row.module.split('.').filter(|p| !p.is_empty()).collect();
    if !file.is_package_init {
        parts.pop();
    }
    for _ in 1..dots {
        parts.pop();
    }
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join(".")
}

/// `crate::`, `self::` and `super::` paths made absolute from the file's module.
pub(crate) fn rust_absolute(module: &str, q: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let here: Vec<&str> = module.split("::").collect();
    for (i, seg) in q.split("::").filter(|s| !s.is_empty()).enumerate() {
        match seg {
            "crate" if i == 0 => parts = vec![here[0].to_string()],
            "self" if i == 0 => parts = here.iter().map(|s| s.to_string()).collect(),
            "super" => {
                if parts.is_empty() && i == 0 {
                    parts = here.iter().map(|s| s.to_string()).collect();
                }
                parts.pop();
            }
            "$crate" => parts = vec![here[0].to_string()],
            other => parts.push(other.to_string()),
        }
    }
    parts.join("::")
}

/// A JS/TS import specifier as a module path: relative ones are joined to
/// the importing file's directory; extensions and `/index` are dropped.
pub(crate) fn js_module(importer: &str, spec: &str) -> String {
    let spec = spec.trim_matches(|c| c == '"' || c == '\'' || c == '`');
    if !spec.starts_with('.') {
        return spec.to_string();
    }
    let mut parts: Vec<&str> = importer.split('/').collect();
    parts.pop();
    for seg in spec.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let mut joined = parts.join("/");
    for ext in [".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs", ".vue", ".svelte"] {
        if let Some(stripped) = joined.strip_suffix(ext) {
            joined = stripped.to_string();
            break;
        }
    }
    if let Some(stripped) = joined.strip_suffix("/index") {
        joined = stripped.to_string();
    }
    joined
}

/// The module a Dart import names: `package:p/a/b.dart` is the package's
/// `lib/a/b` (found below any directory), `b.dart` and `../a/b.dart` are
/// relative to the importer; `dart:core` stays as written.
pub(crate) fn dart_module(importer: &str, uri: &str) -> String {
    let uri = uri.trim_matches(|c| c == '"' || c == '\'');
    let path = match uri.strip_prefix("package:") {
        Some(rest) => format!("lib/{}", rest.split_once('/').map_or(rest, |(_, p)| p)),
        None if uri.contains(':') => return uri.to_string(),
        None => {
            let mut parts: Vec<&str> = importer.split('/').collect();
            parts.pop();
            for seg in uri.split('/') {
                match seg {
                    "" | "." => {}
                    ".." => {
                        parts.pop();
                    }
                    other => parts.push(other),
                }
            }
            parts.join("/")
        }
    };
    path.strip_suffix(".dart").unwrap_or(&path).to_string()
}

/// Names Python code calls without importing; never guessed as repository symbols.
pub(crate) fn is_python_builtin(name: &str) -> bool {
    static BUILTINS: std::sync::OnceLock<FxHashSet<&'static str>> = std::sync::OnceLock::new();
    BUILTINS
        .get_or_init(|| {
            "abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex \
             delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr \
             hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next \
             object oct open ord pow print property range repr reversed round set setattr slice sorted \
             staticmethod str sum super tuple type vars zip __import__ NotImplementedError ValueError TypeError \
             KeyError IndexError AttributeError RuntimeError Exception BaseException StopIteration OSError \
             IOError ImportError AssertionError LookupError ArithmeticError ZeroDivisionError UnicodeError \
             UnicodeDecodeError UnicodeEncodeError DeprecationWarning UserWarning Warning FileNotFoundError \
             PermissionError TimeoutError ConnectionError NameError RecursionError GeneratorExit KeyboardInterrupt \
             SystemExit StopAsyncIteration EOFError MemoryError OverflowError"
                .split_whitespace()
                .collect()
        })
        .contains(name)
}

/// Method names so common on builtin containers and strings that a receiver
/// of unknown type is never guessed to be a repository class because of them.
pub(crate) fn is_common_method(name: &str) -> bool {
    static COMMON: std::sync::OnceLock<FxHashSet<&'static str>> = std::sync::OnceLock::new();
    COMMON
        .get_or_init(|| {
            "get set add append extend insert remove pop clear copy update keys values items setdefault \
             join split rsplit strip lstrip rstrip startswith endswith replace format lower upper encode decode \
             find index count sort reverse read write close open flush seek tell readline readlines \
             push map filter reduce forEach slice splice concat includes indexOf toString then catch finally \
             len iter next send throw put delete has size length apply call bind emit on off once \
             unwrap expect clone into from as_ref as_str to_string iter_mut collect is_empty is_some is_none \
             lock borrow borrow_mut fmt eq cmp hash new default run start stop wait result match search \
             sub group groups debug info warning error exception critical log"
                .split_whitespace()
                .collect()
        })
        .contains(name)
}

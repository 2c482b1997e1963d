//! Module paths and qualified names (the canonicalName), per language.
//!
//! Names depend on the file path and the declared package only, so a renamed
//! file can be renamed in the index without being mined again.

use ken_core::{Language, Scoping};

/// How a file's symbols are named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naming {
    /// What the file's module symbol is called (`requests.sessions`).
    pub module: String,
    /// What goes before each symbol's local path; empty where the language
    /// names symbols without their file (C, C++, Ruby) or by package only.
    pub prefix: String,
    pub separator: &'static str,
}

/// Naming for the file at `path` (relative, `/`-separated).
pub fn naming(language: Language, path: &str, declared_package: Option<&str>) -> Naming {
    let separator = language.path_separator();
    if language.family() != ken_core::Family::Code {
        // A document's or configuration's units are named after the file itself.
        return Naming { module: path.to_string(), prefix: path.to_string(), separator };
    }
    let stem_parts = || -> Vec<&str> {
        let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
        if let Some(last) = parts.last_mut() {
            *last = last.split('.').next().unwrap_or(last);
        }
        parts
    };
    let (module, prefix) = match language.scoping() {
        Scoping::Python => {
            let mut parts = stem_parts();
            if let Some(i) = parts.iter().rposition(|p| *p == "site-packages") {
                parts.drain(..=i);
            } else if parts.first() == Some(&"src") && parts.len() > 1 {
                parts.remove(0);
            }
            if parts.last() == Some(&"__init__") && parts.len() > 1 {
                parts.pop();
            }
            let module = parts.join(".");
            (module.clone(), module)
        }
        Scoping::Rust => {
            let parts = stem_parts();
            let module = match parts.iter().rposition(|p| *p == "src") {
                Some(src) => {
                    let mut out: Vec<String> = Vec::new();
                    if src > 0 {
                        out.push(parts[src - 1].replace('-', "_"));
                    } else {
                        out.push("crate".to_string());
                    }
                    let rest = &parts[src + 1..];
                    for (i, p) in rest.iter().enumerate() {
                        let last = i + 1 == rest.len();
                        if last && matches!(*p, "lib" | "main" | "mod") {
                            continue;
                        }
                        out.push(p.replace('-', "_"));
                    }
                    out.join("::")
                }
                None => parts.join("::"),
            };
            (module.clone(), module)
        }
        Scoping::Js => {
            let mut parts = stem_parts();
            if parts.last() == Some(&"index") && parts.len() > 1 {
                parts.pop();
            }
            let module = parts.join("/");
            (module.clone(), module)
        }
        Scoping::Go | Scoping::Java | Scoping::CSharp | Scoping::Php => {
            let by_path = path_module(path);
            match declared_package {
                Some(pkg) if language == Language::Go => {
                    // Go names a package by its directory; the clause says its short name.
                    let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
                    let module = if dir.is_empty() { pkg.to_string() } else { dir.to_string() };
                    (module.clone(), module)
                }
                Some(pkg) => (pkg.to_string(), pkg.to_string()),
                None if language == Language::Go => (by_path, String::new()),
                None => (by_path, String::new()),
            }
        }
        // Shell functions share one namespace once sourced, as C's do.
        Scoping::C | Scoping::Ruby | Scoping::Shell | Scoping::Dart | Scoping::Sql | Scoping::Terraform => {
            (path_module(path), String::new())
        }
        // `src/shapes.ml` is module `Shapes`: the stem, capitalized.
        Scoping::Ocaml => {
            let stem = stem_parts().pop().unwrap_or_default();
            let mut chars = stem.chars();
            let module: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
            (module.clone(), module)
        }
        Scoping::None => (path.to_string(), path.to_string()),
    };
    Naming { module, prefix, separator }
}

fn path_module(path: &str) -> String {
    path.rsplit_once('.').map(|(stem, _)| stem).unwrap_or(path).to_string()
}

/// The qualified name of a symbol from its file's prefix and its local path.
pub fn qualify(naming: &Naming, local_path: &str) -> String {
    match (naming.prefix.is_empty(), local_path.is_empty()) {
        (_, true) => naming.module.clone(),
        (true, false) => local_path.to_string(),
        (false, false) => {
            // Go and JS modules are paths: members hang off them with a dot.
            let sep = if naming.prefix.contains('/') && naming.separator != " > " { "." } else { naming.separator };
            format!("{}{sep}{local_path}", naming.prefix)
        }
    }
}

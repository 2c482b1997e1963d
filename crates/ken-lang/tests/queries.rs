//! Every bundled query must compile against its grammar, and use only the
//! capture names the miner understands.

use ken_core::{Language, RefKind, SymbolKind};

#[test]
fn queries_compile() {
    let mut problems = Vec::new();
    for config in ken_lang::all() {
        problems.extend(config.problems().iter().cloned());
        if config.grammar.is_none() {
            continue; // documents, configuration and text: split by structure, no queries
        }
        if config.symbols.is_none() {
            problems.push(format!("{}: no symbols query", config.language));
        }
        if config.references.is_none() {
            problems.push(format!("{}: no references query", config.language));
        }
    }
    assert!(problems.is_empty(), "query problems:\n{}", problems.join("\n"));
}

#[test]
fn capture_names_are_known() {
    let mut unknown = Vec::new();
    for config in ken_lang::all() {
        for (query, what) in [(&config.symbols, "symbols"), (&config.references, "references"), (&config.types, "types")] {
            let Some(query) = query else { continue };
            for name in query.capture_names() {
                let known = match *name {
                    "name" | "receiver" | "path" | "alias" | "glob" | "callee" | "scope" | "namespace" | "package" if what != "types" => {
                        true
                    }
                    "binding" | "name" | "type" | "value" | "alias" | "returns" if what == "types" => true,
                    other => match other.split_once('.') {
                        Some(("definition", kind)) if what == "symbols" => SymbolKind::parse(kind).is_some(),
                        Some(("reference", kind)) if what == "references" => RefKind::parse(kind).is_some(),
                        _ => other.starts_with('_'),
                    },
                };
                if !known {
                    unknown.push(format!("{}/{what}.scm: @{name}", config.language));
                }
            }
        }
    }
    assert!(unknown.is_empty(), "unknown captures:\n{}", unknown.join("\n"));
}

#[test]
fn every_language_is_registered_and_detected() {
    for lang in Language::ALL {
        let config = ken_lang::config(lang);
        let ext = config.extensions[0];
        let path = format!("dir/file.{ext}");
        assert_eq!(ken_lang::detect(std::path::Path::new(&path)), Some(lang), "{path}");
    }
}

#[test]
fn shared_extensions_are_settled_by_content() {
    let sniff = |path: &str, text: &str| ken_lang::sniff(std::path::Path::new(path), text);
    assert_eq!(sniff("Shape.m", "#import \"Shape.h\"\n@implementation Shape\n@end\n"), Some(Language::ObjectiveC));
    assert_eq!(sniff("Shape.h", "@interface Shape : NSObject\n@end\n"), Some(Language::ObjectiveC));
    assert_eq!(sniff("peaks.m", "function z = peaks(n)\n  z = n .^ 2;\nend\n"), None);
    assert_eq!(sniff("list.h", "#include <stdio.h>\nint f(void);\n"), None);
    assert_eq!(sniff("run", "#!/usr/bin/env Rscript\n"), Some(Language::R));
    assert!(ken_lang::content_decides(std::path::Path::new("a/b.H")));
    assert!(!ken_lang::content_decides(std::path::Path::new("a/b.c")));
}

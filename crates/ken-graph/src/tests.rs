//! Which symbols are tests, and which are public: for `ken graph tests`,
//! `ken graph untested` and the importance score.

use ken_core::{Language, SymbolKind};
use ken_store::{GraphFile, GraphSymbol};
use rustc_hash::{FxHashMap, FxHashSet};

pub(crate) struct TestClassifier<'a> {
    syms: &'a [GraphSymbol],
    test_files: FxHashSet<i64>,
    language: FxHashMap<i64, Language>,
    index: FxHashMap<i64, usize>,
}

impl<'a> TestClassifier<'a> {
    pub fn new(files: &'a [GraphFile], syms: &'a [GraphSymbol]) -> TestClassifier<'a> {
        TestClassifier {
            syms,
            test_files: files.iter().filter(|f| is_test_path(&f.path)).map(|f| f.id).collect(),
            language: files.iter().map(|f| (f.id, f.language)).collect(),
            index: syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect(),
        }
    }

    pub fn in_test_file(&self, file_id: i64) -> bool {
        self.test_files.contains(&file_id)
    }

    /// A test function or method (by name, attribute or decorator), or, in
    /// languages whose tests are anonymous callbacks (`it("…", () => …)`),
    /// a test file's module.
    pub fn is_test(&self, i: usize) -> bool {
        let s = &self.syms[i];
        let kind = s.kind;
        let language = self.language.get(&s.file_id).copied();
        let in_test_file = self.in_test_file(s.file_id);
        if kind == SymbolKind::Module {
            return in_test_file && matches!(language, Some(Language::JavaScript | Language::TypeScript | Language::Tsx | Language::Ruby));
        }
        if !kind.is_callable() {
            return false;
        }
        let head = s.head.as_str();
        if [
            "#[test]",
            "#[tokio::test",
            "#[rstest",
            "#[test_case",
            "@Test",
            "@ParameterizedTest",
            "[Test",
            "[Fact",
            "[Theory",
            "[TestMethod",
        ]
        .iter()
        .any(|a| head.contains(a))
        {
            return true;
        }
        let name = s.name.as_str();
        match language {
            Some(Language::Python) => {
                let in_test_class = s.parent_id.and_then(|p| self.index.get(&p)).is_some_and(|&p| {
                    let parent = &self.syms[p];
                    parent.kind == SymbolKind::Class
                        && (parent.name.starts_with("Test") || parent.name.ends_with("Test") || parent.name.ends_with("Tests"))
                });
                name.starts_with("test") && (in_test_file || in_test_class)
            }
            Some(Language::Go) => in_test_file && (name.starts_with("Test") || name.starts_with("Benchmark") || name.starts_with("Fuzz")),
            _ => in_test_file && name.starts_with("test"),
        }
    }
}

/// Test files by the conventions of each ecosystem.
pub(crate) fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let in_test_dir = lower.split('/').rev().skip(1).any(|d| matches!(d, "test" | "tests" | "testing" | "__tests__" | "spec" | "specs"));
    in_test_dir
        || file.starts_with("test_")
        || file.ends_with("_test.py")
        || file.ends_with("_test.go")
        || file.ends_with("_spec.rb")
        || file.ends_with("_test.rb")
        || file.contains(".test.")
        || file.contains(".spec.")
        || (file.ends_with("test.java") || file.ends_with("tests.java"))
        || (file.ends_with("test.cs") || file.ends_with("tests.cs"))
        || file == "conftest.py"
}

/// Whether code outside the symbol's module is meant to use it.
pub(crate) fn is_public(s: &GraphSymbol, kind: SymbolKind, language: Option<Language>) -> bool {
    let name = s.name.as_str();
    let head = s.head.as_str();
    match language {
        Some(Language::Python) => {
            let dunder = name.starts_with("__") && name.ends_with("__");
            !name.starts_with('_') || (dunder && matches!(name, "__init__" | "__call__"))
        }
        Some(Language::Rust) => head.contains("pub") || kind == SymbolKind::Module,
        Some(Language::Go) => name.chars().next().is_some_and(char::is_uppercase),
        Some(Language::Java | Language::CSharp | Language::TypeScript | Language::Tsx | Language::Php | Language::Cpp) => {
            !head.contains("private") && !name.starts_with('#')
        }
        Some(Language::JavaScript) => !name.starts_with('#') && !name.starts_with('_'),
        Some(Language::Ruby) => !name.starts_with('_'),
        _ => true,
    }
}

//! Typed reads: file states for incremental indexing, symbol lookup, outlines.

use crate::{Result, Store};
use ken_core::{Language, SymbolKind};
use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

/// What the incremental indexer compares a file on disk against.
#[derive(Clone, Debug)]
pub struct FileRow {
    pub id: i64,
    pub path: String,
    pub language: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: String,
    pub package: Option<String>,
}

/// A symbol as stored, with its file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolRow {
    pub id: i64,
    #[serde(skip)]
    pub parent_id: Option<i64>,
    #[schemars(with = "String")]
    pub kind: SymbolKind,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    #[schemars(with = "String")]
    pub language: Language,
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
    /// Where the name itself is (past decorators and attributes).
    #[serde(skip)]
    pub name_line: u32,
    pub signature: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docstring: Option<String>,
    /// Qualified name of the enclosing symbol (the module for top-level ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

const SYMBOL_COLUMNS: &str = concat!(
    "s.id, s.parent_id, s.kind, s.name, s.qualified_name, f.path, f.language,
    s.start_line, s.start_col, s.end_line, s.end_col, s.signature, ",
    crate::text::docstring_sql!("(SELECT text FROM file_text WHERE file_id = s.file_id)"),
    ", (SELECT p.qualified_name FROM symbols p WHERE p.id = s.parent_id), s.name_line"
);
/// `s.qualified_name = ?1` as the `symbols_qualified_tail` index answers it
/// (schema version 9: it holds each name's last 16 characters only). The
/// `+` keeps SQLite from substituting `?1` for the column in the first
/// term (constant propagation), which would hide the indexed expression.
pub(crate) const QUALIFIED_NAME_IS: &str = "substr(s.qualified_name, -16) = substr(?1, -16) AND +s.qualified_name = ?1";

/// How many columns [`symbol_row`] reads: a query's next column is this one.
const SYMBOL_COLUMN_COUNT: usize = 15;

fn symbol_row(r: &Row) -> rusqlite::Result<SymbolRow> {
    Ok(SymbolRow {
        id: r.get(0)?,
        parent_id: r.get(1)?,
        kind: crate::symbol_kind(r, 2)?,
        name: r.get(3)?,
        qualified_name: r.get(4)?,
        path: r.get(5)?,
        language: crate::language(r, 6)?,
        start_line: r.get(7)?,
        start_col: r.get(8)?,
        end_line: r.get(9)?,
        end_col: r.get(10)?,
        signature: r.get(11)?,
        docstring: crate::text::doc_column(r, 12)?,
        parent: r.get(13)?,
        name_line: r.get(14)?,
    })
}

/// A symbol search: exact or partial name, case-insensitive.
#[derive(Clone, Debug, Default)]
pub struct SymbolQuery {
    pub text: String,
    pub kinds: Vec<SymbolKind>,
    pub language: Option<Language>,
    pub limit: usize,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct IndexStats {
    pub files: u64,
    pub lines: u64,
    pub symbols: u64,
    pub references: u64,
    pub chunks: u64,
    pub files_with_parse_errors: u64,
    pub parse_errors: u64,
}

impl Store {
    pub fn file_rows(&self) -> Result<Vec<FileRow>> {
        let mut stmt = self.conn.prepare("SELECT id, path, language, size, mtime_ns, CASE typeof(hash) WHEN 'blob' THEN lower(hex(hash)) ELSE hash END, package FROM files")?;
        let rows = stmt
            .query_map([], |r| {
                Ok(FileRow {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    language: r.get(2)?,
                    size: r.get::<_, i64>(3)? as u64,
                    mtime_ns: r.get(4)?,
                    hash: r.get(5)?,
                    package: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Symbols whose name or qualified name contains the query, best first:
    /// exact name, then exact ignoring case, then qualified-name suffix
    /// (`Session.send`), then prefix, then substring.
    pub fn find_symbols(&self, query: &SymbolQuery) -> Result<Vec<SymbolRow>> {
        let needle = query.text.trim();
        if needle.is_empty() {
            return Ok(Vec::new());
        }
        let pattern = format!("%{}%", needle.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE (s.name LIKE ?1 ESCAPE '\\' OR s.qualified_name LIKE ?1 ESCAPE '\\')
               AND (?2 IS NULL OR f.language = ?2)"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows: Vec<SymbolRow> =
            stmt.query_map(params![pattern, query.language.map(Language::name)], symbol_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        rows.retain(|s| query.kinds.is_empty() || query.kinds.contains(&s.kind));
        let lower = needle.to_lowercase();
        let tier = |s: &SymbolRow| -> u8 {
            let name = s.name.to_lowercase();
            let qualified = s.qualified_name.to_lowercase();
            if s.name == needle || s.qualified_name == needle {
                0
            } else if name == lower || qualified == lower {
                1
            } else if [".", "::", "/", "\\"].iter().any(|sep| qualified.ends_with(&format!("{sep}{lower}"))) {
                2
            } else if name.starts_with(&lower) {
                3
            } else if name.contains(&lower) {
                4
            } else {
                5
            }
        };
        let kind_rank = |kind: &SymbolKind| match kind {
            k if k.is_type() => 0,
            k if k.is_callable() => 1,
            SymbolKind::Module => 2,
            _ => 3,
        };
        rows.sort_by_cached_key(|s| (tier(s), kind_rank(&s.kind), s.qualified_name.len(), s.path.clone(), s.start_line));
        rows.truncate(if query.limit == 0 { usize::MAX } else { query.limit });
        Ok(rows)
    }

    /// The symbols of one file in source order (parents before children),
    /// or `None` if the file is not in the index.
    pub fn outline(&self, path: &str) -> Result<Option<Vec<SymbolRow>>> {
        let file: Option<i64> = self.conn.query_row("SELECT id FROM files WHERE path = ?1", [path], |r| r.get(0)).optional()?;
        let Some(file_id) = file else { return Ok(None) };
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.file_id = ?1 ORDER BY s.ordinal"
        );
        let rows = self.conn.prepare(&sql)?.query_map([file_id], symbol_row)?.collect::<rusqlite::Result<_>>()?;
        Ok(Some(rows))
    }

    /// A file's text as it was indexed (line numbers in the index refer to
    /// it, whatever the file on disk holds now), or `None` if not indexed.
    pub fn file_text(&self, path: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT ken_slice(t.text, 0, 9223372036854775807) FROM files f JOIN file_text t ON t.file_id = f.id WHERE f.path = ?1",
                [path],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The first `bytes` bytes of a file's indexed text (a header says
    /// whether the file is generated), or `None` if not indexed.
    pub fn file_head(&self, file_id: i64, bytes: usize) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT ken_slice(text, 0, ?2) FROM file_text WHERE file_id = ?1", rusqlite::params![file_id, bytes as i64], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// Indexed paths that end with `suffix`, for resolving a path the user typed.
    pub fn paths_ending_with(&self, suffix: &str) -> Result<Vec<String>> {
        let pattern = format!("%{}", suffix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        let rows = self
            .conn
            .prepare("SELECT path FROM files WHERE path LIKE ?1 ESCAPE '\\' ORDER BY length(path), path LIMIT 20")?
            .query_map([pattern], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    pub fn stats(&self) -> Result<IndexStats> {
        let count = |sql: &str| -> Result<u64> { Ok(self.conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
        Ok(IndexStats {
            files: count("SELECT count(*) FROM files")?,
            lines: count("SELECT coalesce(sum(lines), 0) FROM files")?,
            symbols: count("SELECT count(*) FROM symbols")?,
            references: count("SELECT count(*) FROM refs")?,
            chunks: count("SELECT count(*) FROM chunks")?,
            files_with_parse_errors: count("SELECT count(*) FROM files WHERE parse_errors > 0")?,
            parse_errors: count("SELECT coalesce(sum(parse_errors), 0) FROM files")?,
        })
    }

    /// Indexed files per language.
    pub fn files_by_language(&self) -> Result<Vec<(String, u64)>> {
        let rows = self
            .conn
            .prepare("SELECT language, count(*) FROM files GROUP BY language ORDER BY count(*) DESC, language")?
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    pub fn symbol_by_id(&self, id: i64) -> Result<Option<SymbolRow>> {
        let sql = format!("SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?1");
        Ok(self.conn.prepare_cached(&sql)?.query_row([id], symbol_row).optional()?)
    }

    /// The functions and methods whose declared return type mentions `word`
    /// (`-> NullSession`, `): Optional[NullSession]`), each with that type
    /// as written; the caller checks the word's boundaries.
    pub fn symbols_returning(&self, word: &str) -> Result<Vec<(SymbolRow, String)>> {
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS}, s.return_type FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.return_type IS NOT NULL AND instr(s.return_type, ?1) > 0 ORDER BY f.path, s.start_line"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([word], |r| Ok((symbol_row(r)?, r.get(SYMBOL_COLUMN_COUNT)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Symbols whose qualified name puts them directly in a container
    /// named `owner` (in its spelling, else in any case): `a::Owner::m`, `a.Owner.m`. Finds a Rust
    /// type's methods in `impl` blocks of any module, and members of a type
    /// that is itself unmined (declared inside a macro).
    pub fn members_of(&self, owner: &str) -> Result<Vec<SymbolRow>> {
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.name != s.qualified_name
               AND (s.qualified_name LIKE '%::' || ?1 || '::%' OR s.qualified_name LIKE ?1 || '::%'
                 OR s.qualified_name LIKE '%.' || ?1 || '.%' OR s.qualified_name LIKE ?1 || '.%')
             ORDER BY f.path, s.start_line"
        );
        let rows: Vec<SymbolRow> = self.conn.prepare_cached(&sql)?.query_map([owner], symbol_row)?.collect::<rusqlite::Result<_>>()?;
        let owner_of = |r: &SymbolRow| r.qualified_name.rsplit(['.', ':']).filter(|s| !s.is_empty()).nth(1).map(str::to_string);
        // The spelling given wins: `Chain` is the type, `chain` its module.
        let (exact, folded): (Vec<SymbolRow>, Vec<SymbolRow>) = rows
            .into_iter()
            .filter(|r| owner_of(r).is_some_and(|o| o.eq_ignore_ascii_case(owner)))
            .partition(|r| owner_of(r).as_deref() == Some(owner));
        Ok(if exact.is_empty() { folded } else { exact }.into_iter().take(500).collect())
    }

    /// Symbols whose qualified name is exactly `qualified_name`.
    pub fn symbols_with_qualified_name(&self, qualified_name: &str) -> Result<Vec<SymbolRow>> {
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {QUALIFIED_NAME_IS}
             ORDER BY f.path, s.start_line"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_map([qualified_name], symbol_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// Symbols whose qualified name, or else name, is exactly `text`.
    pub fn symbols_named(&self, text: &str) -> Result<Vec<SymbolRow>> {
        for condition in [QUALIFIED_NAME_IS, "s.name = ?1"] {
            let sql = format!(
                "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {condition}
                 ORDER BY f.path, s.start_line"
            );
            let rows: Vec<SymbolRow> = self.conn.prepare_cached(&sql)?.query_map([text], symbol_row)?.collect::<rusqlite::Result<_>>()?;
            if !rows.is_empty() {
                return Ok(rows);
            }
        }
        Ok(Vec::new())
    }

    /// The innermost symbol of file `path` whose span holds `line`.
    pub fn symbol_at(&self, path: &str, line: u32) -> Result<Option<SymbolRow>> {
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE f.path = ?1 AND s.start_line <= ?2 AND s.end_line >= ?2
             ORDER BY (s.end_line - s.start_line), s.kind = 'module', s.start_line DESC LIMIT 1"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_row(params![path, line], symbol_row).optional()?)
    }

    /// One file per language (the first by path): what to open a language server on.
    pub fn file_paths_by_language(&self) -> Result<Vec<(String, String)>> {
        let rows = self
            .conn
            .prepare("SELECT language, min(path) FROM files GROUP BY language ORDER BY language")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// `(file id, name)` of every symbol: the names each file defines.
    pub fn defined_names(&self) -> Result<Vec<(i64, String)>> {
        let rows = self
            .conn
            .prepare_cached("SELECT file_id, name FROM symbols")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// `(id, name, qualified_name)` of every symbol, for "did you mean".
    pub fn symbol_names(&self) -> Result<Vec<(i64, String, String)>> {
        let rows = self
            .conn
            .prepare("SELECT id, name, qualified_name FROM symbols WHERE kind != 'module'")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}

impl Store {
    /// Symbols (modules excepted) named `name`, ignoring case.
    pub fn symbols_by_name(&self, name: &str) -> Result<Vec<SymbolRow>> {
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.name = ?1 COLLATE NOCASE AND s.kind != 'module' ORDER BY f.path, s.start_line LIMIT 500"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_map([name], symbol_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// Symbols whose name, lowercased without `_`, is `folded`
    /// (`resolveRedirects` finds `resolve_redirects`). Scans the table.
    pub fn symbols_by_folded_name(&self, folded: &str) -> Result<Vec<SymbolRow>> {
        let sql = format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE replace(lower(s.name), '_', '') = ?1 AND s.kind != 'module' ORDER BY f.path, s.start_line LIMIT 500"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_map([folded], symbol_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// The id of the file at `path`.
    pub fn file_id(&self, path: &str) -> Result<Option<i64>> {
        Ok(self.conn.prepare_cached("SELECT id FROM files WHERE path = ?1")?.query_row([path], |r| r.get(0)).optional()?)
    }

    /// `(id, path)` of every file.
    pub fn file_paths(&self) -> Result<Vec<(i64, String)>> {
        let rows = self
            .conn
            .prepare_cached("SELECT id, path FROM files")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Importance (graph analytics) of symbols, where computed.
    pub fn importance_of(&self, ids: &[i64]) -> Result<rustc_hash::FxHashMap<i64, f64>> {
        let mut stmt = self.conn.prepare_cached("SELECT importance FROM symbol_metrics WHERE symbol_id = ?1")?;
        let mut out = rustc_hash::FxHashMap::default();
        for &id in ids {
            if let Some(v) = stmt.query_row([id], |r| r.get::<_, f64>(0)).optional()? {
                out.insert(id, v);
            }
        }
        Ok(out)
    }
}

/// A symbol's identity and kind, without its text: for lookups that ask
/// many symbols one question (which type a method belongs to, what an
/// interface declares), where decoding docstrings would cost the most.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolKey {
    pub id: i64,
    pub parent_id: Option<i64>,
    pub kind: SymbolKind,
    pub language: Language,
    pub name: String,
    pub qualified_name: String,
}

const SYMBOL_KEY_COLUMNS: &str = "s.id, s.parent_id, s.kind, f.language, s.name, s.qualified_name";

fn symbol_key(r: &Row) -> rusqlite::Result<SymbolKey> {
    Ok(SymbolKey {
        id: r.get(0)?,
        parent_id: r.get(1)?,
        kind: crate::symbol_kind(r, 2)?,
        language: crate::language(r, 3)?,
        name: r.get(4)?,
        qualified_name: r.get(5)?,
    })
}

impl Store {
    /// The symbols named exactly `name` (case counts).
    pub fn symbol_keys_named(&self, name: &str) -> Result<Vec<SymbolKey>> {
        let sql = format!(
            "SELECT {SYMBOL_KEY_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.name = ?1 COLLATE NOCASE AND s.name = ?1 ORDER BY s.id"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_map([name], symbol_key)?.collect::<rusqlite::Result<_>>()?)
    }

    /// The symbols whose qualified name is exactly `qualified_name`.
    pub fn symbol_keys_with_qualified_name(&self, qualified_name: &str) -> Result<Vec<SymbolKey>> {
        let sql =
            format!("SELECT {SYMBOL_KEY_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {QUALIFIED_NAME_IS} ORDER BY s.id");
        Ok(self.conn.prepare_cached(&sql)?.query_map([qualified_name], symbol_key)?.collect::<rusqlite::Result<_>>()?)
    }

    /// The symbol of that id.
    pub fn symbol_key(&self, id: i64) -> Result<Option<SymbolKey>> {
        let sql = format!("SELECT {SYMBOL_KEY_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?1");
        Ok(self.conn.prepare_cached(&sql)?.query_row([id], symbol_key).optional()?)
    }

    /// The symbols declared directly in `parent` (in its own file).
    pub fn child_keys(&self, parent: i64) -> Result<Vec<SymbolKey>> {
        let sql = format!(
            "SELECT {SYMBOL_KEY_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
             WHERE s.file_id = (SELECT file_id FROM symbols WHERE id = ?1) AND s.parent_id = ?1 ORDER BY s.ordinal"
        );
        Ok(self.conn.prepare_cached(&sql)?.query_map([parent], symbol_key)?.collect::<rusqlite::Result<_>>()?)
    }
}

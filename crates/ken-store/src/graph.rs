//! The dependency graph's rows: what resolution reads (files, symbols,
//! references, bindings), the edges it writes, and the reads graph queries
//! and analytics make.
//!
//! A `parent_of` edge from a symbol's own `parent_id` is implied, not
//! stored: the symbol tree already says it, and it was a fifth of the
//! edges. Only a parent that differs (a method adopted by a type of
//! another file) is a row; the reads below put the implied ones back.
//! Likewise an unresolved call, instantiation or base class is its
//! reference marked with its source (`refs.loose_src`), read back as an
//! unresolved edge, and a resolved edge that repeats its reference's name,
//! qualifier and position names the reference instead (`ref_ordinal`);
//! reads go through the `edge_rows` view, which puts them back.

use crate::codes::{Coded, coded};
use crate::write::Writer;
use crate::{Result, Store};
use ken_core::{Language, RefKind, Relation, Resolution, SymbolKind};
use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;
use std::sync::LazyLock;

/// A file as resolution sees it.
#[derive(Clone, Debug)]
pub struct GraphFile {
    pub id: i64,
    pub path: String,
    pub language: Language,
    pub module: String,
    pub package: Option<String>,
    pub linked: bool,
}

/// A symbol as resolution and graph queries see it.
#[derive(Clone, Debug, Serialize)]
pub struct GraphSymbol {
    pub id: i64,
    pub file_id: i64,
    pub parent_id: Option<i64>,
    pub kind: SymbolKind,
    pub name: String,
    pub qualified_name: String,
    pub return_type: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub name_line: u32,
    pub name_col: u32,
    /// The text from the start of the definition to its name: decorators,
    /// attributes and modifiers (`@pytest.fixture`, `#[test]`, `pub async`).
    pub head: String,
}

/// A raw reference, as mined.
#[derive(Clone, Debug)]
pub struct RefRow {
    pub file_id: i64,
    pub enclosing_id: i64,
    pub kind: RefKind,
    pub name: String,
    pub qualifier: Option<String>,
    pub alias: Option<String>,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug)]
pub struct BindingRow {
    pub file_id: i64,
    pub scope_id: i64,
    pub name: String,
    pub type_text: String,
    pub source: String,
    pub line: u32,
}

/// An edge to write. `dst_id` is `None` for an unresolved reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEdge {
    pub src_id: i64,
    pub dst_id: Option<i64>,
    pub relation: Relation,
    pub resolution: Resolution,
    pub name: String,
    pub qualifier: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// A stored edge, with the file its source is in.
#[derive(Clone, Debug, Serialize)]
pub struct EdgeRow {
    pub src: i64,
    pub dst: Option<i64>,
    pub relation: Relation,
    pub resolution: Resolution,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<String>,
    pub path: String,
    pub line: u32,
    pub col: u32,
}

/// Per-symbol analytics (MutaGReP): degrees, usage, PageRank, importance.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MetricsRow {
    pub symbol_id: i64,
    pub in_degree: u32,
    pub out_degree: u32,
    pub callers: u32,
    pub refs: u32,
    pub files_using: u32,
    pub pagerank: f64,
    pub importance: f64,
    pub entry_point: bool,
    pub is_test: bool,
}

fn graph_symbol(r: &Row) -> rusqlite::Result<GraphSymbol> {
    Ok(GraphSymbol {
        id: r.get(0)?,
        file_id: r.get(1)?,
        parent_id: r.get(2)?,
        kind: crate::symbol_kind(r, 3)?,
        name: r.get(4)?,
        qualified_name: r.get(5)?,
        return_type: r.get(6)?,
        start_line: r.get(7)?,
        end_line: r.get(8)?,
        name_line: r.get(9)?,
        name_col: r.get(10)?,
        head: r.get::<_, Option<String>>(11)?.unwrap_or_default(),
    })
}

fn relation(r: &Row, idx: usize) -> rusqlite::Result<Relation> {
    coded(r, idx)
}

fn binding_row(r: &Row) -> rusqlite::Result<BindingRow> {
    Ok(BindingRow { file_id: r.get(0)?, scope_id: r.get(1)?, name: r.get(2)?, type_text: r.get(3)?, source: r.get(4)?, line: r.get(5)? })
}

fn edge_row(r: &Row) -> rusqlite::Result<EdgeRow> {
    Ok(EdgeRow {
        src: r.get(0)?,
        dst: r.get(1)?,
        relation: relation(r, 2)?,
        resolution: coded(r, 3)?,
        name: r.get(4)?,
        qualifier: r.get(5)?,
        path: r.get(6)?,
        line: r.get(7)?,
        col: r.get(8)?,
    })
}

const EDGE_COLUMNS: &str = "e.src_id, e.dst_id, e.relation, e.resolution, e.name, e.qualifier, f.path, e.line, e.col";

/// Unresolved edges kept on their references, shaped like `edges`; the
/// relation is the one [`loose_ref_kind`] keeps on the reference's kind.
static LOOSE_REF_EDGES: LazyLock<String> = LazyLock::new(|| {
    let cases: String =
        Relation::ALL.iter().filter_map(|&r| loose_ref_kind(r).map(|kind| format!(" WHEN {} THEN {}", kind.code(), r.code()))).collect();
    let unresolved = Resolution::Unresolved.code();
    format!(
        "SELECT r.file_id AS file_id, 1000000000 + r.ordinal AS ordinal, r.loose_src AS src_id, NULL AS dst_id,
            CASE r.kind{cases} END AS relation, {unresolved} AS resolution, r.name AS name, r.qualifier AS qualifier,
            r.line AS line, r.col AS col
        FROM refs r WHERE r.loose_src IS NOT NULL"
    )
});

/// The reference kind an unresolved edge of `relation` is kept on, if any.
fn loose_ref_kind(relation: Relation) -> Option<RefKind> {
    match relation {
        Relation::Calls => Some(RefKind::Call),
        Relation::Instantiates => Some(RefKind::Instantiate),
        Relation::DerivedClassOf => Some(RefKind::Inherit),
        _ => None,
    }
}

/// The references of `kind` named `?1`. The kind is a literal, not a
/// parameter: the planner picks a partial index (`refs_field_uses`) only
/// for a kind it can see.
pub(crate) fn refs_named_sql(kind: RefKind) -> String {
    format!(
        "SELECT r.file_id, r.enclosing_id, r.name, r.qualifier, r.alias, r.line, r.col, f.path
         FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ?1 AND r.kind = {} ORDER BY f.path, r.line, r.col",
        kind.code()
    )
}

/// The implied `parent_of` edges as rows shaped like `edges` (`s` is the
/// child), for linked files whose child has no stored parent.
pub(crate) static IMPLIED_PARENT_EDGES: LazyLock<String> = LazyLock::new(|| {
    let (parent_of, exact) = (Relation::ParentOf.code(), Resolution::Exact.code());
    format!(
        "SELECT s.file_id AS file_id, -1 - s.ordinal AS ordinal, s.parent_id AS src_id,
            s.id AS dst_id, {parent_of} AS relation, {exact} AS resolution, s.name AS name, NULL AS qualifier,
            s.name_line AS line, s.name_col AS col
        FROM symbols s JOIN files pf ON pf.id = s.file_id
        WHERE s.parent_id IS NOT NULL AND pf.linked = 1
          AND NOT EXISTS (SELECT 1 FROM edges a WHERE a.dst_id = s.id AND a.relation = {parent_of})"
    )
});

/// Every edge: stored, implied parent and unresolved, as one relation `e`
/// shaped like `edges`.
static EVERY_EDGE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "(SELECT file_id, ordinal, src_id, dst_id, relation, resolution, name, qualifier, line, col FROM edge_rows
          UNION ALL {} UNION ALL {}) e",
        *IMPLIED_PARENT_EDGES, *LOOSE_REF_EDGES
    )
});

impl Store {
    pub fn graph_files(&self) -> Result<Vec<GraphFile>> {
        let rows = self
            .conn
            .prepare("SELECT id, path, language, module, package, linked FROM files ORDER BY id")?
            .query_map([], |r| {
                Ok(GraphFile {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    language: crate::language(r, 2)?,
                    module: r.get(3)?,
                    package: r.get(4)?,
                    linked: r.get::<_, i64>(5)? != 0,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Every symbol, with the head of its definition (decorators, attributes,
    /// modifiers) up to its name, capped at a few hundred bytes.
    pub fn graph_symbols(&self) -> Result<Vec<GraphSymbol>> {
        let sql = "SELECT s.id, s.file_id, s.parent_id, s.kind, s.name, s.qualified_name, s.return_type,
                s.start_line, s.end_line, s.name_line, s.name_col,
                CASE WHEN s.kind = 'module' THEN NULL
                     ELSE ken_slice(t.text, s.start_byte, min(s.end_byte - s.start_byte, 400)) END
             FROM symbols s JOIN file_text t ON t.file_id = s.file_id ORDER BY s.id";
        let mut rows: Vec<GraphSymbol> = self.conn.prepare(sql)?.query_map([], graph_symbol)?.collect::<rusqlite::Result<_>>()?;
        for s in &mut rows {
            // Keep the text before the name: that is where decorators and modifiers are.
            if let Some(at) = s.head.find(s.name.as_str()) {
                s.head.truncate(at);
            }
            // Truncating keeps the 400-byte buffer: on windows-sys's 225,000
            // symbols, about 50 MiB of the link phase's peak.
            s.head.shrink_to_fit();
        }
        Ok(rows)
    }

    /// References of the given kinds; of every file when `files` is `None`.
    pub fn graph_refs(&self, kinds: &[RefKind], files: Option<&[i64]>) -> Result<Vec<RefRow>> {
        let kinds_sql = kinds.iter().map(|k| k.code().to_string()).collect::<Vec<_>>().join(",");
        let map = |r: &Row| -> rusqlite::Result<RefRow> {
            Ok(RefRow {
                file_id: r.get(0)?,
                enclosing_id: r.get(1)?,
                kind: coded(r, 2)?,
                name: r.get(3)?,
                qualifier: r.get(4)?,
                alias: r.get(5)?,
                line: r.get(6)?,
                col: r.get(7)?,
            })
        };
        let base = format!("SELECT file_id, enclosing_id, kind, name, qualifier, alias, line, col FROM refs WHERE kind IN ({kinds_sql})");
        match files {
            None => Ok(self.conn.prepare(&base)?.query_map([], map)?.collect::<rusqlite::Result<_>>()?),
            Some(files) => {
                let mut stmt = self.conn.prepare_cached(&format!("{base} AND file_id = ?1 ORDER BY ordinal"))?;
                let mut out = Vec::new();
                for f in files {
                    for row in stmt.query_map([f], map)? {
                        out.push(row?);
                    }
                }
                Ok(out)
            }
        }
    }

    /// The references of one kind that name `name`, with their file's path.
    pub fn refs_named(&self, name: &str, kind: RefKind) -> Result<Vec<(RefRow, String)>> {
        let mut stmt = self.conn.prepare_cached(&refs_named_sql(kind))?;
        let rows = stmt.query_map(params![name], |r| {
            Ok((
                RefRow {
                    file_id: r.get(0)?,
                    enclosing_id: r.get(1)?,
                    kind,
                    name: r.get(2)?,
                    qualifier: r.get(3)?,
                    alias: r.get(4)?,
                    line: r.get(5)?,
                    col: r.get(6)?,
                },
                r.get(7)?,
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn graph_bindings(&self) -> Result<Vec<BindingRow>> {
        let sql = "SELECT file_id, scope_id, name, type_text, source, line FROM bindings";
        Ok(self.conn.prepare(sql)?.query_map([], binding_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// The type bindings of one file (its parameters', variables' and fields' declared or assigned types).
    /// The type bindings whose type as written mentions `word`
    /// (`init: (source: Observable<T>, subscriber: Subscriber<R>) => void`);
    /// the caller checks the word's boundaries.
    pub fn bindings_mentioning(&self, word: &str) -> Result<Vec<BindingRow>> {
        let sql = "SELECT file_id, scope_id, name, type_text, source, line FROM bindings WHERE instr(type_text, ?1) > 0";
        Ok(self.conn.prepare_cached(sql)?.query_map([word], binding_row)?.collect::<rusqlite::Result<_>>()?)
    }

    pub fn file_bindings(&self, file_id: i64) -> Result<Vec<BindingRow>> {
        let sql = "SELECT file_id, scope_id, name, type_text, source, line FROM bindings WHERE file_id = ?1";
        Ok(self.conn.prepare_cached(sql)?.query_map([file_id], binding_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// Every edge, resolved or not.
    pub fn all_edges(&self) -> Result<Vec<EdgeRow>> {
        let sql = format!("SELECT {EDGE_COLUMNS} FROM {} JOIN files f ON f.id = e.file_id ORDER BY e.file_id, e.ordinal", *EVERY_EDGE);
        Ok(self.conn.prepare(&sql)?.query_map([], edge_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// The bases written in a class's header that resolve to nothing in the
    /// index (`click.Group`), by their last name.
    pub fn unresolved_bases(&self, class: i64) -> Result<Vec<String>> {
        let sql = format!(
            "SELECT name FROM refs WHERE file_id = (SELECT file_id FROM symbols WHERE id = ?1) AND loose_src = ?1 AND kind = {}",
            RefKind::Inherit.code()
        );
        Ok(self.conn.prepare_cached(&sql)?.query_map([class], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?)
    }

    /// Edges leaving `src` with one of `relations` (all relations if empty).
    pub fn edges_from(&self, src: i64, relations: &[Relation]) -> Result<Vec<EdgeRow>> {
        self.edges_by("e.src_id", src, relations)
    }

    /// Edges arriving at `dst` with one of `relations` (all relations if empty).
    pub fn edges_to(&self, dst: i64, relations: &[Relation]) -> Result<Vec<EdgeRow>> {
        self.edges_by("e.dst_id", dst, relations)
    }

    fn edges_by(&self, column: &str, id: i64, relations: &[Relation]) -> Result<Vec<EdgeRow>> {
        // The implied parent edges of one symbol: its children (in its own
        // file, where the index on files finds them) or its parent.
        let implied =
            if column == "e.src_id" { "s.file_id = (SELECT file_id FROM symbols WHERE id = ?1) AND s.parent_id = ?1" } else { "s.id = ?1" };
        let sql = format!(
            "SELECT {EDGE_COLUMNS} FROM (SELECT file_id, src_id, dst_id, relation, resolution, name, qualifier, line, col
                     FROM edge_rows e WHERE {column} = ?1 AND e.dst_id IS NOT NULL
                 UNION ALL
                 SELECT file_id, src_id, dst_id, relation, resolution, name, qualifier, line, col
                     FROM ({implied_parent} AND {implied})) e
             JOIN files f ON f.id = e.file_id ORDER BY f.path, e.line, e.col",
            implied_parent = *IMPLIED_PARENT_EDGES
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([id], edge_row)?;
        let mut out = Vec::new();
        for row in rows {
            let row = row?;
            if relations.is_empty() || relations.contains(&row.relation) {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// Unresolved edges naming `name` with one of `relations`: the uses of
    /// a symbol the index does not hold (yet, or any more).
    pub fn loose_edges_named(&self, name: &str, relations: &[Relation]) -> Result<Vec<EdgeRow>> {
        let sql = format!(
            "SELECT {EDGE_COLUMNS} FROM (SELECT file_id, src_id, dst_id, relation, resolution, name, qualifier, line, col
                     FROM edges WHERE name = ?1 AND (dst_id IS NULL OR resolution = {unique_name})
                 UNION ALL SELECT file_id, src_id, dst_id, relation, resolution, name, qualifier, line, col
                     FROM ({} AND r.name = ?1)) e
             JOIN files f ON f.id = e.file_id ORDER BY f.path, e.line, e.col",
            *LOOSE_REF_EDGES,
            unique_name = Resolution::UniqueName.code()
        );
        let rows: Vec<EdgeRow> = self.conn.prepare_cached(&sql)?.query_map([name], edge_row)?.collect::<rusqlite::Result<_>>()?;
        Ok(rows.into_iter().filter(|e| e.dst.is_none() && (relations.is_empty() || relations.contains(&e.relation))).collect())
    }

    /// Resolved edges as `(src, dst, relation, file_id)`: what analytics need.
    pub fn resolved_edges(&self) -> Result<Vec<(i64, i64, Relation, i64)>> {
        let rows = self
            .conn
            .prepare(&format!(
                "SELECT src_id, dst_id, relation, file_id FROM edges WHERE dst_id IS NOT NULL
                 UNION ALL SELECT src_id, dst_id, relation, file_id FROM ({})",
                *IMPLIED_PARENT_EDGES
            ))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, relation(r, 2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Edges per resolution kind, and how many of them have a target, in
    /// one pass over the edges (a link run reports them; on a large
    /// repository a pass costs as much as linking one edited file).
    pub fn edge_totals(&self) -> Result<Vec<(Resolution, u64, u64)>> {
        let sql =
            format!("SELECT e.resolution, count(*), coalesce(sum(e.dst_id IS NOT NULL), 0) FROM {} GROUP BY e.resolution", *EVERY_EDGE);
        let rows = self
            .conn
            .prepare(&sql)?
            .query_map([], |r| Ok((coded::<Resolution>(r, 0)?, r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)? as u64)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    pub fn unlinked_files(&self) -> Result<Vec<i64>> {
        let rows = self
            .conn
            .prepare("SELECT id FROM files WHERE linked = 0 ORDER BY id")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// One symbol's analytics, if computed.
    pub fn metrics(&self, symbol_id: i64) -> Result<Option<MetricsRow>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT symbol_id, in_degree, out_degree, callers, refs, files_using, pagerank, importance, entry_point, is_test
                 FROM symbol_metrics WHERE symbol_id = ?1",
            )?
            .query_row([symbol_id], metrics_row)
            .optional()?)
    }

    /// All analytics rows, most important first.
    pub fn all_metrics(&self) -> Result<Vec<MetricsRow>> {
        Ok(self
            .conn
            .prepare(
                "SELECT m.symbol_id, m.in_degree, m.out_degree, m.callers, m.refs, m.files_using, m.pagerank, m.importance,
                        m.entry_point, m.is_test
                 FROM symbol_metrics m JOIN symbols s ON s.id = m.symbol_id
                 ORDER BY m.importance DESC, s.qualified_name, s.id",
            )?
            .query_map([], metrics_row)?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// Analytics rows of every symbol but modules, most important first,
    /// each with its symbol's kind and language, read only as far as
    /// `visit` asks (it answers whether to go on): a page of the most
    /// important symbols reads its rows, not the index's million.
    pub fn visit_metrics_by_importance(&self, mut visit: impl FnMut(MetricsRow, SymbolKind, Language) -> Result<bool>) -> Result<()> {
        let mut stmt = self.conn.prepare(
            "SELECT m.symbol_id, m.in_degree, m.out_degree, m.callers, m.refs, m.files_using, m.pagerank, m.importance,
                    m.entry_point, m.is_test, s.kind, f.language
             FROM symbol_metrics m JOIN symbols s ON s.id = m.symbol_id JOIN files f ON f.id = s.file_id
             WHERE s.kind != 'module'
             ORDER BY m.importance DESC, s.qualified_name, s.id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if !visit(metrics_row(row)?, crate::symbol_kind(row, 10)?, crate::language(row, 11)?)? {
                break;
            }
        }
        Ok(())
    }
}

fn metrics_row(r: &Row) -> rusqlite::Result<MetricsRow> {
    Ok(MetricsRow {
        symbol_id: r.get(0)?,
        in_degree: r.get(1)?,
        out_degree: r.get(2)?,
        callers: r.get(3)?,
        refs: r.get(4)?,
        files_using: r.get(5)?,
        pagerank: r.get(6)?,
        importance: r.get(7)?,
        entry_point: r.get::<_, i64>(8)? != 0,
        is_test: r.get::<_, i64>(9)? != 0,
    })
}

/// One of a file's references, as `put_links` matches edges to them.
struct FileRef {
    ordinal: i64,
    name: String,
    qualifier: Option<String>,
    kind: RefKind,
}

impl Writer<'_> {
    /// Replaces a file's outgoing edges and dependencies, and marks it linked.
    pub fn put_links(&self, file_id: i64, edges: &[NewEdge], deps: &[i64]) -> Result<()> {
        let tx = &self.tx;
        tx.prepare_cached("DELETE FROM edges WHERE file_id = ?1")?.execute([file_id])?;
        tx.prepare_cached("DELETE FROM file_deps WHERE file_id = ?1")?.execute([file_id])?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO edges(file_id, ordinal, src_id, dst_id, relation, resolution, name, qualifier, line, col, ref_ordinal)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?;
        let mut stored_parent = tx.prepare_cached("SELECT parent_id FROM symbols WHERE id = ?1")?;
        tx.prepare_cached("UPDATE refs SET loose_src = NULL WHERE file_id = ?1 AND loose_src IS NOT NULL")?.execute([file_id])?;
        // The file's references by position, the first written last: an
        // unresolved edge is kept on its reference, and a resolved one names
        // the reference it repeats.
        let mut refs: rustc_hash::FxHashMap<(u32, u32), Vec<FileRef>> = rustc_hash::FxHashMap::default();
        if !edges.is_empty() {
            let mut stmt =
                tx.prepare_cached("SELECT ordinal, line, col, name, qualifier, kind FROM refs WHERE file_id = ?1 ORDER BY ordinal DESC")?;
            for row in stmt.query_map([file_id], |r| {
                Ok((r.get(1)?, r.get(2)?, FileRef { ordinal: r.get(0)?, name: r.get(3)?, qualifier: r.get(4)?, kind: coded(r, 5)? }))
            })? {
                let (line, col, found) = row?;
                refs.entry((line, col)).or_default().push(found);
            }
        }
        let mut keep_on_ref = tx.prepare_cached("UPDATE refs SET loose_src = ?3 WHERE file_id = ?1 AND ordinal = ?2")?;
        for (ordinal, e) in edges.iter().enumerate() {
            if e.dst_id.is_none()
                && let Some(kind) = loose_ref_kind(e.relation)
                && let Some(at) = refs.get_mut(&(e.line, e.col))
                && let Some(i) = at.iter().rposition(|r| r.name == e.name && r.kind == kind)
            {
                let ordinal = at.remove(i).ordinal;
                keep_on_ref.execute(params![file_id, ordinal, e.src_id])?;
                continue;
            }
            if e.relation == Relation::ParentOf
                && let Some(child) = e.dst_id
                && stored_parent.query_row([child], |r| r.get::<_, Option<i64>>(0)).optional()?.flatten() == Some(e.src_id)
            {
                continue; // implied by the symbol tree (see the module's comment)
            }
            // Edges found by a name keep it: `edges_loose` looks them up by it.
            let repeated = (e.dst_id.is_some() && e.resolution != Resolution::UniqueName)
                .then(|| refs.get(&(e.line, e.col))?.iter().find(|r| r.name == e.name && r.qualifier == e.qualifier))
                .flatten();
            let (name, qualifier, line, col, ref_ordinal) = match repeated {
                Some(r) => (None, None, None, None, Some(r.ordinal)),
                None => (Some(e.name.as_str()), e.qualifier.as_deref(), Some(e.line), Some(e.col), None),
            };
            insert.execute(params![
                file_id,
                ordinal as i64,
                e.src_id,
                e.dst_id,
                e.relation.code(),
                e.resolution.code(),
                name,
                qualifier,
                line,
                col,
                ref_ordinal
            ])?;
        }
        let mut insert = tx.prepare_cached("INSERT OR IGNORE INTO file_deps(file_id, dep_file_id) VALUES (?1, ?2)")?;
        for d in deps {
            if *d != file_id {
                insert.execute([file_id, *d])?;
            }
        }
        tx.prepare_cached("UPDATE files SET linked = 1 WHERE id = ?1")?.execute([file_id])?;
        Ok(())
    }

    /// Replaces all symbol analytics.
    pub fn put_metrics(&self, rows: &[MetricsRow]) -> Result<()> {
        let tx = &self.tx;
        tx.execute("DELETE FROM symbol_metrics", [])?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO symbol_metrics(symbol_id, in_degree, out_degree, callers, refs, files_using, pagerank, importance, entry_point, is_test)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?;
        for m in rows {
            insert.execute(params![
                m.symbol_id,
                m.in_degree,
                m.out_degree,
                m.callers,
                m.refs,
                m.files_using,
                m.pagerank,
                m.importance,
                m.entry_point,
                m.is_test
            ])?;
        }
        Ok(())
    }
}

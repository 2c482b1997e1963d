//! The units that become points (symbols and chunks) and their texts, their
//! BM25 index (FTS5, `lexical`), which carry a dense vector in the vector
//! shard (`points`), and the embedding cache.
//!
//! The shard itself lives in ken-search; this side records, in the same
//! transactions as everything else, which points exist and which the shard
//! holds, so a killed run resumes where it stopped.

use crate::{Result, Store};
use ken_core::{Language, SymbolKind};
use rusqlite::{OptionalExtension, params};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::path::Path;

/// A symbol or a chunk, with everything needed to embed it, index it for
/// BM25 and filter on it.
#[derive(Clone, Debug)]
pub struct UnitText {
    /// Point id in the shard: see [`UnitText::point_id`].
    pub point_id: i64,
    pub file_id: i64,
    pub path: String,
    pub language: Language,
    /// Symbol kind; for a chunk, the kind of the symbol it is named after
    /// (`module` for top-level code).
    pub kind: SymbolKind,
    pub is_chunk: bool,
    /// The symbol (for a chunk: the one it is named after, if any).
    pub symbol_id: Option<i64>,
    pub name: String,
    pub qualified_name: String,
    /// The symbol's path inside its module (`Flask.get_send_file_max_age`);
    /// for a chunk, its symbol's; empty for top-level code.
    pub local_path: String,
    pub signature: String,
    pub docstring: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// The code: a symbol's whole span, or a chunk's text.
    pub code: String,
    /// For a chunk: enclosing (or preceding) class and function, as
    /// `(name, start_line, end_line, encloses)`.
    pub class: Option<(String, u32, u32, bool)>,
    pub method: Option<(String, u32, u32, bool)>,
    /// The docstring of the type that holds the unit (a method's class, a
    /// chunk's enclosing class), as stored: its words name the concept
    /// that a member's own code and name leave unsaid.
    pub parent_doc: Option<String>,
}

impl UnitText {
    /// Symbols get even point ids and chunks odd ones, so either id space
    /// maps to points without a lookup table.
    pub fn point_id(is_chunk: bool, id: i64) -> i64 {
        id * 2 + is_chunk as i64
    }

    /// `(is_chunk, symbol or chunk id)` of a point id.
    pub fn unit_of(point_id: i64) -> (bool, i64) {
        (point_id & 1 == 1, point_id >> 1)
    }
}

/// A row of `points` with its BM25 document, as written after the shard
/// accepted the point (when it carries a dense vector).
#[derive(Clone, Debug)]
pub struct PointRow {
    pub id: i64,
    pub is_chunk: bool,
    /// The embedding text's hash when the index has a model (zeros until then).
    pub text_hash: [u8; 16],
    pub dense: bool,
    /// BM25 terms as space-separated tokens (see ken-search's `lexical`):
    /// a symbol's names, which weigh more, and the rest of its text.
    pub names: String,
    pub body: String,
}

/// Which units a search may return. Empty lists allow everything.
#[derive(Clone, Debug, Default)]
pub struct UnitFilter {
    pub languages: Vec<Language>,
    pub kinds: Vec<SymbolKind>,
    /// Only these files (a `--path` glob resolved against the index).
    pub file_ids: Option<Vec<i64>>,
    /// Only these points (scoring a known set, e.g. a graph's nodes).
    pub point_ids: Option<Vec<i64>>,
}

/// How much a match in a symbol's names outweighs one in its body.
const NAMES_WEIGHT: f64 = 3.0;

#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct EmbedProgress {
    pub symbols: u64,
    pub symbols_embedded: u64,
    pub chunks: u64,
    pub chunks_embedded: u64,
    /// Files whose points are not yet in the shard.
    pub files_unsynced: u64,
}

/// [`EmbedProgress`] without the split by unit, which costs a scan of the
/// points: what a search asks on every query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbedTotals {
    pub total: u64,
    pub embedded: u64,
    pub files_unsynced: u64,
}

impl EmbedTotals {
    pub fn complete(&self) -> bool {
        self.files_unsynced == 0 && self.embedded == self.total
    }
}

impl EmbedProgress {
    pub fn total(&self) -> u64 {
        self.symbols + self.chunks
    }
    pub fn embedded(&self) -> u64 {
        self.symbols_embedded + self.chunks_embedded
    }
    pub fn complete(&self) -> bool {
        self.files_unsynced == 0 && self.embedded() == self.total()
    }
}

/// A symbol unit's select; `$holder_doc`: the holder's docstring column.
macro_rules! symbol_unit_sql {
    ($holder_doc:expr) => {
        concat!(
            "SELECT s.id, s.file_id, f.path, f.language, s.kind, s.name, s.qualified_name, s.signature, ",
            crate::text::docstring_sql!("t.text"),
            ", s.start_line, s.end_line, ken_slice(t.text, s.start_byte, s.end_byte - s.start_byte), s.local_path, ",
            $holder_doc,
            " FROM symbols s JOIN files f ON f.id = s.file_id JOIN file_text t ON t.file_id = s.file_id
            LEFT JOIN symbols p ON p.id = s.parent_id"
        )
    };
}
/// A chunk unit's select; `$holder_doc`: the enclosing class's docstring column.
macro_rules! chunk_unit_sql {
    ($holder_doc:expr) => {
        concat!(
            "SELECT c.id, c.file_id, f.path, f.language, coalesce(s.kind, 'module'),
                coalesce(s.name, ''), coalesce(s.qualified_name, f.module), c.symbol_id, c.start_line, c.end_line,
                ken_slice(t.text, c.start_byte, c.end_byte - c.start_byte),
                k.name, k.start_line, k.end_line, c.class_encloses,
                m.name, m.start_line, m.end_line, c.method_encloses, coalesce(s.local_path, ''), ",
            $holder_doc,
            " FROM chunks c JOIN files f ON f.id = c.file_id JOIN file_text t ON t.file_id = c.file_id
            LEFT JOIN symbols s ON s.id = c.symbol_id
            LEFT JOIN symbols k ON k.id = c.class_id
            LEFT JOIN symbols m ON m.id = c.method_id"
        )
    };
}
/// Units as they are embedded: with their holders' docstrings.
const SYMBOL_UNIT: &str = symbol_unit_sql!(crate::text::docstring_sql!("p", "t.text"));
const CHUNK_UNIT: &str = chunk_unit_sql!(crate::text::docstring_sql!("k", "t.text"));
/// Units as a search shows them: no holder's docstring to read back.
const SYMBOL_UNIT_SHOWN: &str = symbol_unit_sql!("NULL");
const CHUNK_UNIT_SHOWN: &str = chunk_unit_sql!("NULL");

fn symbol_unit(r: &rusqlite::Row) -> rusqlite::Result<UnitText> {
    let id: i64 = r.get(0)?;
    Ok(UnitText {
        point_id: UnitText::point_id(false, id),
        file_id: r.get(1)?,
        path: r.get(2)?,
        language: crate::language(r, 3)?,
        kind: crate::symbol_kind(r, 4)?,
        is_chunk: false,
        symbol_id: Some(id),
        name: r.get(5)?,
        qualified_name: r.get(6)?,
        signature: r.get(7)?,
        docstring: crate::text::doc_column(r, 8)?,
        start_line: r.get(9)?,
        end_line: r.get(10)?,
        code: r.get::<_, Option<String>>(11)?.unwrap_or_default(),
        local_path: r.get(12)?,
        class: None,
        method: None,
        parent_doc: crate::text::doc_column(r, 13)?,
    })
}

fn chunk_unit(r: &rusqlite::Row) -> rusqlite::Result<UnitText> {
    let id: i64 = r.get(0)?;
    let context = |at: usize| -> rusqlite::Result<Option<(String, u32, u32, bool)>> {
        Ok(match r.get::<_, Option<String>>(at)? {
            Some(name) => Some((name, r.get(at + 1)?, r.get(at + 2)?, r.get::<_, Option<bool>>(at + 3)?.unwrap_or(false))),
            None => None,
        })
    };
    Ok(UnitText {
        point_id: UnitText::point_id(true, id),
        file_id: r.get(1)?,
        path: r.get(2)?,
        language: crate::language(r, 3)?,
        kind: crate::symbol_kind(r, 4)?,
        is_chunk: true,
        name: r.get(5)?,
        qualified_name: r.get(6)?,
        symbol_id: r.get(7)?,
        signature: String::new(),
        docstring: None,
        start_line: r.get(8)?,
        end_line: r.get(9)?,
        code: r.get(10)?,
        class: context(11)?,
        method: context(15)?,
        local_path: r.get(19)?,
        parent_doc: crate::text::doc_column(r, 20)?,
    })
}

impl Store {
    /// Files whose points in the shard are stale or missing.
    /// Files whose points are not written yet, with their size in bytes.
    pub fn unsynced_files(&self) -> Result<Vec<(i64, u64)>> {
        let rows = self
            .conn
            .prepare("SELECT id, size FROM files WHERE vsynced = 0 ORDER BY id")?
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Files that are gone from the index but still have points.
    pub fn deleted_point_files(&self) -> Result<Vec<i64>> {
        let rows = self
            .conn
            .prepare("SELECT DISTINCT file_id FROM points WHERE file_id NOT IN (SELECT id FROM files)")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// The symbols (modules excepted: their chunks stand for them) and chunks of a file.
    pub fn units_of_file(&self, file_id: i64) -> Result<Vec<UnitText>> {
        let mut units: Vec<UnitText> = self
            .conn
            .prepare_cached(&format!("{SYMBOL_UNIT} WHERE s.file_id = ?1 AND s.kind != 'module' ORDER BY s.ordinal"))?
            .query_map([file_id], symbol_unit)?
            .collect::<rusqlite::Result<_>>()?;
        let chunks = self
            .conn
            .prepare_cached(&format!("{CHUNK_UNIT} WHERE c.file_id = ?1 ORDER BY c.id"))?
            .query_map([file_id], chunk_unit)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        units.extend(chunks);
        Ok(units)
    }

    /// Units by point id as a search shows them, in the order given (ids
    /// no longer in the index are left out), without their holders'
    /// docstrings ([`UnitText::parent_doc`] is `None`): a query reads a
    /// hundred candidates and shows none of those.
    pub fn units_by_points(&self, point_ids: &[i64]) -> Result<Vec<UnitText>> {
        self.units_by_points_from(point_ids, SYMBOL_UNIT_SHOWN, CHUNK_UNIT_SHOWN)
    }

    /// Units by point id as they are embedded, holders' docstrings and all.
    pub fn units_to_embed(&self, point_ids: &[i64]) -> Result<Vec<UnitText>> {
        self.units_by_points_from(point_ids, SYMBOL_UNIT, CHUNK_UNIT)
    }

    fn units_by_points_from(&self, point_ids: &[i64], symbol_sql: &str, chunk_sql: &str) -> Result<Vec<UnitText>> {
        let mut symbol = self.conn.prepare_cached(&format!("{symbol_sql} WHERE s.id = ?1"))?;
        let mut chunk = self.conn.prepare_cached(&format!("{chunk_sql} WHERE c.id = ?1"))?;
        let mut out = Vec::with_capacity(point_ids.len());
        for &point in point_ids {
            let (is_chunk, id) = UnitText::unit_of(point);
            let unit = if is_chunk { chunk.query_row([id], chunk_unit) } else { symbol.query_row([id], symbol_unit) }.optional()?;
            out.extend(unit);
        }
        Ok(out)
    }

    /// Records that the shard now holds exactly these points for each file
    /// (and none for the files in `gone`), and marks the files synced.
    pub fn put_points(&mut self, files: &[(i64, Vec<PointRow>)], gone: &[i64]) -> Result<()> {
        let tx = self.write_tx()?;
        {
            let mut unindex = tx.prepare_cached("DELETE FROM lexical WHERE rowid IN (SELECT id FROM points WHERE file_id = ?1)")?;
            let mut delete = tx.prepare_cached("DELETE FROM points WHERE file_id = ?1")?;
            let mut insert =
                tx.prepare_cached("INSERT OR REPLACE INTO points(id, file_id, unit, text_hash, dense) VALUES (?1, ?2, ?3, ?4, ?5)")?;
            let mut index = tx.prepare_cached("INSERT INTO lexical(rowid, names, body) VALUES (?1, ?2, ?3)")?;
            let mut synced = tx.prepare_cached("UPDATE files SET vsynced = 1 WHERE id = ?1")?;
            for f in gone {
                unindex.execute([f])?;
                delete.execute([f])?;
            }
            for (file_id, points) in files {
                unindex.execute([file_id])?;
                delete.execute([file_id])?;
                for p in points {
                    // No hash was taken (nothing to embed): an empty blob, not 16 zero bytes a point.
                    let hash: &[u8] = if p.text_hash == [0; 16] { &[] } else { &p.text_hash };
                    insert.execute(params![p.id, file_id, p.is_chunk as i64, hash, p.dense])?;
                }
                synced.execute([file_id])?;
            }
            // FTS5 flushes its pending terms to a new segment whenever a rowid
            // is lower than the last one written: symbols (even ids) and
            // chunks (odd ids) come from two sequences, so in file order
            // nearly every row started a segment, and merging them was most
            // of the lexical phase. In id order, a batch is one segment.
            let mut sorted: Vec<&PointRow> = files.iter().flat_map(|(_, p)| p).collect();
            sorted.sort_unstable_by_key(|p| p.id);
            for p in sorted {
                index.execute(params![p.id, p.names, p.body])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// BM25 over the units: `(point id, score)`, best first, for an FTS5
    /// query over hashed terms (`t1 OR t2 …`). Ties go to the lower id.
    pub fn lexical_search(&self, query: &str, limit: usize, filter: &UnitFilter) -> Result<Vec<(i64, f32)>> {
        let mut sql = format!("SELECT rowid, -bm25(lexical, 1.0, {NAMES_WEIGHT}) AS score FROM lexical WHERE lexical MATCH ?1");
        let list = |items: &[&str]| items.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(",");
        let ids = |items: &[i64]| items.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        if let Some(points) = &filter.point_ids {
            sql += &format!(" AND rowid IN ({})", ids(points));
        }
        if let Some(files) = &filter.file_ids {
            sql += &format!(" AND rowid IN (SELECT id FROM points WHERE file_id IN ({}))", ids(files));
        }
        if !filter.languages.is_empty() {
            sql += &format!(
                " AND rowid IN (SELECT p.id FROM points p JOIN files f ON f.id = p.file_id WHERE f.language IN ({}))",
                list(&filter.languages.iter().map(|l| l.name()).collect::<Vec<_>>())
            );
        }
        if !filter.kinds.is_empty() {
            // A chunk has the kind of the symbol it is named after (`module` for top-level code).
            sql += &format!(
                " AND rowid IN (SELECT p.id FROM points p
                    LEFT JOIN symbols s ON p.unit = 0 AND s.id = p.id >> 1
                    LEFT JOIN chunks c ON p.unit = 1 AND c.id = p.id >> 1
                    LEFT JOIN symbols cs ON cs.id = c.symbol_id
                    WHERE coalesce(s.kind, cs.kind, 'module') IN ({}))",
                list(&filter.kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>())
            );
        }
        sql += " ORDER BY score DESC, rowid LIMIT ?2";
        let rows = self
            .conn
            .prepare_cached(&sql)?
            .query_map(params![query, limit as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)? as f32)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// How often `token` occurs in each chunk, read from the BM25 index
    /// itself (FTS5's `instance` vocabulary): whole-file BM25 for a long
    /// query needs no second index. Chunks tile a file (only line windows
    /// of an oversized node overlap), so their counts add up to the
    /// file's. `(chunk point id, file id, count)`.
    pub fn chunk_term_counts(&self, token: &str) -> Result<Vec<(i64, i64, u32)>> {
        self.conn.execute_batch("CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_instances USING fts5vocab(main, lexical, instance)")?;
        let rows = self
            .conn
            .prepare_cached(
                "SELECT v.doc, p.file_id, count(*) FROM temp.lexical_instances v JOIN points p ON p.id = v.doc
                 WHERE v.term = ?1 AND p.unit = 1 GROUP BY v.doc",
            )?
            .query_map([token], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u32)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// The file of each point, in the order given (`-1` for a point no
    /// longer in the index).
    pub fn files_of_points(&self, point_ids: &[i64]) -> Result<Vec<i64>> {
        let mut stmt = self.conn.prepare_cached("SELECT file_id FROM points WHERE id = ?1")?;
        let mut out = Vec::with_capacity(point_ids.len());
        for id in point_ids {
            out.push(stmt.query_row([id], |r| r.get(0)).optional()?.unwrap_or(-1));
        }
        Ok(out)
    }

    /// The symbol each point is (a symbol's point) or is named after (a
    /// chunk's), in the order given; `None` for top-level code and for
    /// points no longer in the index.
    pub fn symbols_of_points(&self, point_ids: &[i64]) -> Result<Vec<Option<i64>>> {
        let mut chunk = self.conn.prepare_cached("SELECT symbol_id FROM chunks WHERE id = ?1")?;
        let mut out = Vec::with_capacity(point_ids.len());
        for &point in point_ids {
            let (is_chunk, id) = UnitText::unit_of(point);
            out.push(if is_chunk { chunk.query_row([id], |r| r.get(0)).optional()?.flatten() } else { Some(id) });
        }
        Ok(out)
    }

    /// `(chunk point id, symbol)` of the chunks named after each of these
    /// symbols: where their code is indexed for BM25.
    pub fn chunk_points_of_symbols(&self, symbol_ids: &[i64]) -> Result<Vec<(i64, i64)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT c.id FROM chunks c WHERE c.file_id = (SELECT file_id FROM symbols WHERE id = ?1) AND c.symbol_id = ?1",
        )?;
        let mut out = Vec::new();
        for &symbol in symbol_ids {
            for chunk in stmt.query_map([symbol], |r| r.get::<_, i64>(0))? {
                out.push((UnitText::point_id(true, chunk?), symbol));
            }
        }
        Ok(out)
    }

    /// Every file's language.
    pub fn file_languages(&self) -> Result<FxHashMap<i64, Language>> {
        let mut stmt = self.conn.prepare_cached("SELECT id, language FROM files")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, crate::language(r, 1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// `(file id, path, bytes)` of every file that has chunks: the
    /// documents of whole-file BM25.
    pub fn chunked_files(&self) -> Result<Vec<(i64, String, u64)>> {
        let rows = self
            .conn
            .prepare_cached("SELECT f.id, f.path, f.size FROM files f WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = f.id)")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Ids of up to `limit` points without a dense vector: symbols before chunks,
    /// so semantic search over symbols works early on a large repository.
    pub fn pending_points(&self, limit: usize) -> Result<Vec<i64>> {
        let rows = self
            .conn
            .prepare_cached("SELECT id FROM points WHERE dense = 0 ORDER BY unit, id LIMIT ?1")?
            .query_map([limit as i64], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    pub fn mark_dense(&mut self, point_ids: &[i64]) -> Result<()> {
        let tx = self.write_tx()?;
        {
            let mut update = tx.prepare_cached("UPDATE points SET dense = 1 WHERE id = ?1")?;
            for id in point_ids {
                update.execute([id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Forgets which points carry dense vectors (the shard was rebuilt, or
    /// the model changed).
    pub fn reset_dense(&mut self) -> Result<()> {
        self.conn.execute("UPDATE points SET dense = 0 WHERE dense = 1", [])?;
        Ok(())
    }

    /// Forgets every point: the next sync writes the shard from scratch.
    pub fn reset_points(&mut self) -> Result<()> {
        let tx = self.write_tx()?;
        tx.execute("DELETE FROM lexical", [])?;
        tx.execute("DELETE FROM points", [])?;
        tx.execute("UPDATE files SET vsynced = 0", [])?;
        tx.commit()?;
        Ok(())
    }

    /// Copies another index's embedding cache into this one: a snapshot of
    /// the same repository at another commit then embeds only the text that
    /// changed. Rows already here win. Returns the rows added.
    pub fn seed_embeddings(&mut self, other: &Path) -> Result<u64> {
        let uri = format!("file:{}?mode=ro", crate::uri_path(&other.join(crate::DB_FILE)));
        self.conn.execute("ATTACH DATABASE ?1 AS seed", [uri])?;
        let copied = self
            .conn
            .execute("INSERT OR IGNORE INTO main.embeddings(model, hash, vector) SELECT model, hash, vector FROM seed.embeddings", []);
        self.conn.execute("DETACH DATABASE seed", [])?;
        Ok(copied? as u64)
    }

    /// Cached embeddings of `model` for the given text hashes.
    pub fn cached_embeddings(&self, model: &str, hashes: &[[u8; 16]]) -> Result<FxHashMap<[u8; 16], Vec<f32>>> {
        let mut stmt = self.conn.prepare_cached("SELECT vector FROM embeddings WHERE model = ?1 AND hash = ?2")?;
        let mut out = FxHashMap::default();
        for hash in hashes {
            if out.contains_key(hash) {
                continue;
            }
            let blob: Option<Vec<u8>> = stmt.query_row(params![model, &hash[..]], |r| r.get(0)).optional()?;
            if let Some(blob) = blob {
                out.insert(*hash, blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect());
            }
        }
        Ok(out)
    }

    pub fn put_embeddings(&mut self, model: &str, rows: &[([u8; 16], &[f32])]) -> Result<()> {
        let tx = self.write_tx()?;
        {
            let mut insert = tx.prepare_cached("INSERT OR REPLACE INTO embeddings(model, hash, vector) VALUES (?1, ?2, ?3)")?;
            for (hash, vector) in rows {
                let blob: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
                insert.execute(params![model, &hash[..], blob])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    pub fn embed_progress(&self) -> Result<EmbedProgress> {
        let mut p = EmbedProgress::default();
        let mut stmt = self.conn.prepare("SELECT unit, count(*), coalesce(sum(dense), 0) FROM points GROUP BY unit")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)))?;
        for row in rows {
            let (unit, total, dense) = row?;
            if unit == 0 {
                (p.symbols, p.symbols_embedded) = (total as u64, dense as u64);
            } else {
                (p.chunks, p.chunks_embedded) = (total as u64, dense as u64);
            }
        }
        p.files_unsynced = self.conn.query_row("SELECT count(*) FROM files WHERE vsynced = 0", [], |r| r.get::<_, i64>(0))? as u64;
        Ok(p)
    }

    /// The points and how many are embedded: a count of an index and of the
    /// pending points' partial index (about 1 ms on Django's 39k points,
    /// where `embed_progress` takes 10).
    pub fn embed_totals(&self) -> Result<EmbedTotals> {
        let count = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64);
        let total = count("SELECT count(*) FROM points")?;
        let pending = count("SELECT count(*) FROM points WHERE dense = 0")?;
        let files_unsynced = count("SELECT count(*) FROM files WHERE vsynced = 0")?;
        Ok(EmbedTotals { total, embedded: total - pending, files_unsynced })
    }
}

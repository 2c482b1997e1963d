//! MutaGReP's intents: what a model wrote for each function, method and
//! class (`intents`), and every answer it gave, by model and symbol text
//! (`intent_cache`), so an unchanged symbol is never asked about twice.

use crate::{Result, Store};
use ken_core::{Language, SymbolKind};
use rusqlite::{OptionalExtension, params};

/// A symbol that may get intents, with its code and the cache key its
/// current intents came from (if it has any).
#[derive(Clone, Debug)]
pub struct IntentSubject {
    pub symbol_id: i64,
    pub kind: SymbolKind,
    pub qualified_name: String,
    pub path: String,
    pub language: Language,
    pub code: String,
    /// A test, as the graph classified it (`symbol_metrics.is_test`; false
    /// before the graph is linked).
    pub is_test: bool,
    pub intents_hash: Option<Vec<u8>>,
}

/// One intent, with what its symbol is (for the shard's payload filters).
#[derive(Clone, Debug, PartialEq)]
pub struct IntentRow {
    pub id: i64,
    pub symbol_id: i64,
    pub text: String,
    pub file_id: i64,
    pub path: String,
    pub language: Language,
    pub kind: SymbolKind,
    pub name: String,
    pub qualified_name: String,
}

const INTENT_ROW: &str = "SELECT i.id, i.symbol_id, i.text, s.file_id, f.path, f.language, s.kind, s.name, s.qualified_name
    FROM intents i JOIN symbols s ON s.id = i.symbol_id JOIN files f ON f.id = s.file_id";

fn intent_row(r: &rusqlite::Row) -> rusqlite::Result<IntentRow> {
    Ok(IntentRow {
        id: r.get(0)?,
        symbol_id: r.get(1)?,
        text: r.get(2)?,
        file_id: r.get(3)?,
        path: r.get(4)?,
        language: crate::language(r, 5)?,
        kind: crate::symbol_kind(r, 6)?,
        name: r.get(7)?,
        qualified_name: r.get(8)?,
    })
}

impl Store {
    /// Whether the index has the intent tables: one written by an older
    /// ken and only read since has not been migrated (it has no intents).
    fn has_intents(&self) -> Result<bool> {
        Ok(self.schema_version()? >= 6)
    }

    /// The symbols of `kinds`, in file order, with their code.
    pub fn intent_subjects(&self, kinds: &[SymbolKind]) -> Result<Vec<IntentSubject>> {
        let kinds: Vec<String> = kinds.iter().map(|k| format!("'{}'", k.as_str())).collect();
        let sql = format!(
            "SELECT s.id, s.kind, s.qualified_name, f.path, f.language,
                    ken_slice(t.text, s.start_byte, s.end_byte - s.start_byte),
                    (SELECT i.hash FROM intents i WHERE i.symbol_id = s.id LIMIT 1),
                    coalesce(m.is_test, 0)
             FROM symbols s JOIN files f ON f.id = s.file_id JOIN file_text t ON t.file_id = s.file_id
             LEFT JOIN symbol_metrics m ON m.symbol_id = s.id
             WHERE s.kind IN ({}) ORDER BY f.path, s.ordinal",
            kinds.join(", ")
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([], |r| {
            Ok(IntentSubject {
                symbol_id: r.get(0)?,
                kind: crate::symbol_kind(r, 1)?,
                qualified_name: r.get(2)?,
                path: r.get(3)?,
                language: crate::language(r, 4)?,
                code: r.get(5)?,
                intents_hash: r.get(6)?,
                is_test: r.get::<_, i64>(7)? != 0,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// What `model` wrote for the text hashed to `hash`, if it was asked before.
    pub fn cached_intents(&self, model: &str, hash: &[u8]) -> Result<Option<Vec<String>>> {
        let json: Option<String> = self
            .conn
            .prepare_cached("SELECT intents FROM intent_cache WHERE model = ?1 AND hash = ?2")?
            .query_row(params![model, hash], |r| r.get(0))
            .optional()?;
        Ok(json.and_then(|j| serde_json::from_str(&j).ok()))
    }

    /// Gives each symbol these intents (replacing any it had) and keeps them
    /// in the cache under `model` and the hash, in one transaction. A symbol
    /// that is gone by now is skipped.
    pub fn put_intents(&mut self, model: &str, items: &[(i64, Vec<u8>, Vec<String>)]) -> Result<()> {
        let tx = self.write_tx()?;
        {
            let mut cache = tx.prepare_cached("INSERT OR REPLACE INTO intent_cache(model, hash, intents) VALUES (?1, ?2, ?3)")?;
            let mut clear = tx.prepare_cached("DELETE FROM intents WHERE symbol_id = ?1")?;
            let mut exists = tx.prepare_cached("SELECT 1 FROM symbols WHERE id = ?1")?;
            let mut insert = tx.prepare_cached("INSERT INTO intents(symbol_id, hash, text) VALUES (?1, ?2, ?3)")?;
            for (symbol_id, hash, intents) in items {
                let json = serde_json::to_string(intents).expect("strings serialize");
                cache.execute(params![model, hash, json])?;
                clear.execute([symbol_id])?;
                if !exists.exists([symbol_id])? {
                    continue;
                }
                for text in intents {
                    insert.execute(params![symbol_id, hash, text])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every intent, by id.
    pub fn all_intents(&self) -> Result<Vec<IntentRow>> {
        let mut stmt = self.conn.prepare(&format!("{INTENT_ROW} ORDER BY i.id"))?;
        let rows = stmt.query_map([], intent_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The intents with these ids, in the order given; ids gone are left out.
    pub fn intents_by_ids(&self, ids: &[i64]) -> Result<Vec<IntentRow>> {
        if !self.has_intents()? {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(&format!("{INTENT_ROW} WHERE i.id = ?1"))?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            out.extend(stmt.query_row([id], intent_row).optional()?);
        }
        Ok(out)
    }

    /// How many intents the index holds, and for how many symbols.
    pub fn intent_counts(&self) -> Result<(u64, u64)> {
        if !self.has_intents()? {
            return Ok((0, 0));
        }
        Ok(self.conn.query_row("SELECT count(*), count(DISTINCT symbol_id) FROM intents", [], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64))
        })?)
    }

    /// A fingerprint of the intents table (count, highest id, sum of ids):
    /// the shard holding their vectors is current while it is unchanged.
    pub fn intents_fingerprint(&self) -> Result<String> {
        Ok(self.conn.query_row("SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0) FROM intents", [], |r| {
            Ok(format!("{}:{}:{}", r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
        })?)
    }
}

//! Batched, transactional writes of mined files.

use crate::Result;
use crate::codes::Coded;
use ken_core::{FileAnalysis, RefKind, Resolution};
use rusqlite::{OptionalExtension, ToSql, Transaction, params};

/// What the index keeps about a file besides what was mined from it.
#[derive(Clone, Debug)]
pub struct FileRecord<'a> {
    pub path: &'a str,
    pub language: &'a str,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: &'a str,
}

/// One transaction's worth of changes. Dropping it without [`Writer::commit`]
/// rolls everything back.
pub struct Writer<'c> {
    pub(crate) tx: Transaction<'c>,
    /// Whether any file was linked when the batch began: only a linked file
    /// can need linking again, and in a fresh index none is (so a cold run
    /// skips looking for dependents of every file it writes).
    any_linked: bool,
}

impl<'c> Writer<'c> {
    pub(crate) fn new(tx: Transaction<'c>) -> Result<Writer<'c>> {
        let any_linked = tx.query_row("SELECT EXISTS (SELECT 1 FROM files WHERE linked = 1)", [], |r| r.get(0))?;
        Ok(Writer { tx, any_linked })
    }

    /// Replaces everything known about `file.path` with a fresh analysis.
    ///
    /// A file already in the index keeps its id, and its symbols' ids move
    /// to the new symbols of the same kind and qualified name, so edges from
    /// other files stay valid. Only when the file's interface (its symbols,
    /// imports, bases and member types) changed are the files that depend on
    /// it marked for resolving again.
    pub fn put_file(&self, file: &FileRecord, text: &str, analysis: &FileAnalysis) -> Result<()> {
        let tx = &self.tx;
        let interface = interface_hash(analysis);
        let old: Option<(i64, Option<Vec<u8>>)> = tx
            .prepare_cached("SELECT id, interface FROM files WHERE path = ?1")?
            .query_row([file.path], |r| {
                let interface = match r.get(1)? {
                    rusqlite::types::Value::Blob(bytes) => Some(bytes),
                    _ => None,
                };
                Ok((r.get(0)?, interface))
            })
            .optional()?;
        let mut old_symbols: Vec<(i64, String, String)> = Vec::new();
        // An index written before version 10 holds it as text: changed once.
        let interface_changed = old.as_ref().is_none_or(|(_, i)| i.as_deref() != Some(&interface[..]));
        let size = file.size as i64;
        // The columns an insert and an update both write, in this order.
        let columns: [&dyn ToSql; 9] = [
            &file.language,
            &size,
            &file.mtime_ns,
            &file.hash,
            &analysis.module,
            &analysis.declared_package,
            &analysis.lines,
            &analysis.parse_errors,
            &interface,
        ];
        let file_id = match &old {
            Some((id, _)) => {
                if interface_changed {
                    self.unlink_dependents(*id)?;
                }
                old_symbols = tx
                    .prepare_cached("SELECT id, kind, qualified_name FROM symbols WHERE file_id = ?1 ORDER BY ordinal")?
                    .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                // Its own edges are rebuilt when it resolves again.
                for table in ["refs", "chunks", "bindings", "file_text", "edges", "file_deps"] {
                    tx.prepare_cached(&format!("DELETE FROM {table} WHERE file_id = ?1"))?.execute([id])?;
                }
                tx.prepare_cached(
                    "UPDATE files SET language = ?1, size = ?2, mtime_ns = ?3, hash = coalesce(unhex(?4), ?4), module = ?5, package = ?6,
                        lines = ?7, parse_errors = ?8, interface = ?9, linked = 0, vsynced = 0 WHERE id = ?10",
                )?
                .execute(rusqlite::params_from_iter(columns.iter().copied().chain([id as &dyn ToSql])))?;
                *id
            }
            None => {
                tx.prepare_cached(
                    "INSERT INTO files(language, size, mtime_ns, hash, module, package, lines, parse_errors, interface, path)
                     VALUES (?1, ?2, ?3, coalesce(unhex(?4), ?4), ?5, ?6, ?7, ?8, ?9, ?10)",
                )?
                .execute(rusqlite::params_from_iter(columns.iter().copied().chain([&file.path as &dyn ToSql])))?;
                tx.last_insert_rowid()
            }
        };
        tx.prepare_cached("INSERT INTO file_text(file_id, text) VALUES (?1, ?2)")?
            .execute(params![file_id, crate::text::compress(text)])?;

        // A symbol whose kind and qualified name the file still has keeps
        // its id (the first old one of that name for the first new one):
        // edges into it from other files, and the points and BM25 rows that
        // name it, stay valid while the rest of the run catches up.
        let mut reusable: rustc_hash::FxHashMap<(&str, &str), std::collections::VecDeque<i64>> = rustc_hash::FxHashMap::default();
        for (old_id, kind, qualified) in &old_symbols {
            reusable.entry((kind.as_str(), qualified.as_str())).or_default().push_back(*old_id);
        }
        let mut ids: Vec<i64> = Vec::with_capacity(analysis.symbols.len());
        {
            const COLUMNS: &str = "file_id, ordinal, parent_id, kind, name, local_path, qualified_name, signature,
                    docstring, start_byte, end_byte, start_line, start_col, end_line, end_col, name_line, name_col,
                    return_type";
            let mut insert = tx.prepare_cached(&format!(
                "INSERT INTO symbols({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"
            ))?;
            let mut update = tx.prepare_cached(&format!(
                "UPDATE symbols SET ({COLUMNS}) = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18) WHERE id = ?19"
            ))?;
            for (ordinal, s) in analysis.symbols.iter().enumerate() {
                // Parents come before children, so their ids are known.
                let parent = s.parent.and_then(|p| ids.get(p as usize).copied());
                let values = params![
                    file_id,
                    ordinal as i64,
                    parent,
                    s.kind.as_str(),
                    s.name,
                    s.local_path,
                    s.qualified_name,
                    s.signature,
                    crate::text::stored_doc(s.docstring.as_deref(), text, s.span.start_byte as usize..s.span.end_byte as usize),
                    s.span.start_byte,
                    s.span.end_byte,
                    s.span.start_line,
                    s.span.start_col,
                    s.span.end_line,
                    s.span.end_col,
                    s.name_line,
                    s.name_col,
                    s.return_type
                ];
                match reusable.get_mut(&(s.kind.as_str(), s.qualified_name.as_str())).and_then(|ids| ids.pop_front()) {
                    Some(id) => {
                        update.execute(rusqlite::params_from_iter(values.iter().copied().chain([&id as &dyn ToSql])))?;
                        ids.push(id);
                    }
                    None => {
                        insert.execute(values)?;
                        ids.push(tx.last_insert_rowid());
                    }
                }
            }
        }
        // Symbols the file no longer has go (a changed interface unlinked
        // the files whose edges named them, above).
        {
            let mut delete = tx.prepare_cached("DELETE FROM symbols WHERE id = ?1")?;
            for id in reusable.into_values().flatten() {
                delete.execute([id])?;
            }
        }
        let id_of = |ordinal: u32| ids.get(ordinal as usize).copied();
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO refs(file_id, ordinal, enclosing_id, kind, name, qualifier, alias, line, col)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?;
            for (ordinal, r) in analysis.references.iter().enumerate() {
                insert.execute(params![
                    file_id,
                    ordinal as i64,
                    id_of(r.enclosing).or(ids.first().copied()),
                    r.kind.code(),
                    r.name,
                    r.qualifier,
                    r.alias,
                    r.line,
                    r.col
                ])?;
            }
        }
        {
            let mut insert = tx
                .prepare_cached("INSERT INTO bindings(file_id, scope_id, name, type_text, source, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
            for b in &analysis.bindings {
                let scope = id_of(b.scope).or(ids.first().copied());
                insert.execute(params![file_id, scope, b.name, b.type_text, b.source.as_str(), b.line])?;
            }
        }
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO chunks(file_id, symbol_id, start_line, end_line, start_byte, end_byte,
                    class_id, class_encloses, method_id, method_encloses)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for c in &analysis.chunks {
                insert.execute(params![
                    file_id,
                    c.symbol.and_then(id_of),
                    c.start_line,
                    c.end_line,
                    c.start_byte,
                    c.end_byte,
                    c.class.as_ref().and_then(|x| id_of(x.symbol)),
                    c.class.as_ref().map(|x| x.encloses),
                    c.method.as_ref().and_then(|x| id_of(x.symbol)),
                    c.method.as_ref().map(|x| x.encloses),
                ])?;
            }
        }
        if interface_changed {
            self.unlink_by_names(file_id)?;
        }
        Ok(())
    }

    /// Files that could not resolve a name `file_id` now defines, or that
    /// resolved one only by its being unique, resolve again.
    fn unlink_by_names(&self, file_id: i64) -> Result<()> {
        if !self.any_linked {
            return Ok(());
        }
        let tx = &self.tx;
        let (unique_name, field_use) = (Resolution::UniqueName.code(), RefKind::FieldUse.code());
        tx.prepare_cached(&format!(
            "UPDATE files SET linked = 0 WHERE linked = 1 AND id IN (
                SELECT e.file_id FROM edges e
                WHERE (e.dst_id IS NULL OR e.resolution = {unique_name})
                  AND e.name IN (SELECT name FROM symbols WHERE file_id = ?1)
                UNION SELECT r.file_id FROM refs r
                WHERE r.loose_src IS NOT NULL AND r.name IN (SELECT name FROM symbols WHERE file_id = ?1))"
        ))?
        .execute([file_id])?;
        // Unresolved attribute uses are kept as raw references only (see
        // ken-graph): files using a member name this file now defines resolve again.
        tx.prepare_cached(&format!(
            "UPDATE files SET linked = 0 WHERE linked = 1 AND id IN (
                SELECT r.file_id FROM refs r
                WHERE r.kind = {field_use}
                  AND r.name IN (SELECT name FROM symbols WHERE file_id = ?1 AND kind IN ('field', 'constant', 'method')))"
        ))?
        .execute([file_id])?;
        Ok(())
    }

    /// Records a new size and mtime for a file whose content did not change.
    pub fn touch_file(&self, file_id: i64, size: u64, mtime_ns: i64) -> Result<()> {
        self.tx.prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE id = ?1")?.execute(params![
            file_id,
            size as i64,
            mtime_ns
        ])?;
        Ok(())
    }

    /// Moves a file to a new path without mining it again: only the module
    /// and the qualified names, which derive from the path, change.
    pub fn rename_file(&self, file_id: i64, file: &FileRecord, module: &str, qualify: impl Fn(&str) -> String) -> Result<()> {
        let tx = &self.tx;
        self.unlink_dependents(file_id)?;
        tx.prepare_cached("UPDATE files SET linked = 0, vsynced = 0 WHERE id = ?1")?.execute([file_id])?;
        tx.prepare_cached("DELETE FROM files WHERE path = ?1 AND id != ?2")?.execute(params![file.path, file_id])?;
        tx.prepare_cached("UPDATE files SET path = ?2, size = ?3, mtime_ns = ?4, module = ?5 WHERE id = ?1")?.execute(params![
            file_id,
            file.path,
            file.size as i64,
            file.mtime_ns,
            module
        ])?;
        let rows: Vec<(i64, String)> = tx
            .prepare_cached("SELECT id, local_path FROM symbols WHERE file_id = ?1")?
            .query_map([file_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut update = tx.prepare_cached(
            "UPDATE symbols SET qualified_name = ?2, name = CASE WHEN kind = 'module' THEN ?3 ELSE name END WHERE id = ?1",
        )?;
        let module_name = module.rsplit(['.', '/', ':', '\\']).next().unwrap_or(module);
        for (id, local) in rows {
            update.execute(params![id, qualify(&local), module_name])?;
        }
        Ok(())
    }

    pub fn delete_file(&self, file_id: i64) -> Result<()> {
        self.unlink_dependents(file_id)?;
        self.tx.prepare_cached("DELETE FROM files WHERE id = ?1")?.execute([file_id])?;
        Ok(())
    }

    /// Marks the files whose resolution consulted `file_id` for resolving again.
    fn unlink_dependents(&self, file_id: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE files SET linked = 0 WHERE linked = 1 AND id IN (SELECT file_id FROM file_deps WHERE dep_file_id = ?1)",
            )?
            .execute([file_id])?;
        self.set_meta("metrics_fresh", "0")
    }

    pub fn delete_all(&self) -> Result<()> {
        self.tx.execute("DELETE FROM files", [])?;
        Ok(())
    }

    /// Every file resolves again on the next link.
    pub fn unlink_all(&self) -> Result<()> {
        self.tx.execute("UPDATE files SET linked = 0 WHERE linked = 1", [])?;
        Ok(())
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.tx
            .prepare_cached("INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2")?
            .execute([key, value])?;
        Ok(())
    }

    pub fn commit(self) -> Result<()> {
        self.tx.commit()?;
        Ok(())
    }
}

/// A digest of what other files can see of this one: symbols (kind, name,
/// parent, return type), imports, bases, and the types bound at class or
/// module scope or to `self.`/`this.` fields. A change elsewhere (a function
/// body) leaves it unchanged, so dependents need not resolve again.
fn interface_hash(analysis: &FileAnalysis) -> [u8; 8] {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    analysis.module.hash(&mut h);
    analysis.declared_package.hash(&mut h);
    for s in &analysis.symbols {
        (s.kind.as_str(), &s.qualified_name, s.parent, &s.return_type).hash(&mut h);
    }
    for r in &analysis.references {
        if matches!(r.kind, ken_core::RefKind::Import | ken_core::RefKind::Inherit) {
            (r.kind.as_str(), &r.name, &r.qualifier, &r.alias, r.enclosing).hash(&mut h);
        }
    }
    for b in &analysis.bindings {
        let scope_kind = analysis.symbols.get(b.scope as usize).map(|s| s.kind);
        let visible = !scope_kind.is_some_and(|k| k.is_callable()) || b.name.contains('.') || b.name.starts_with('@');
        if visible {
            (b.scope, &b.name, &b.type_text, b.source.as_str()).hash(&mut h);
        }
    }
    // A blob: the column's text affinity would turn an integer into text.
    h.finish().to_le_bytes()
}

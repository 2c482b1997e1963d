//! The SQLite system of record: schema, migrations, and typed reads and writes.
//!
//! All disk IO of the index goes through this crate. Every change happens in
//! a transaction, so a killed run leaves the index as of its last commit and
//! the next run carries on from there. One writer at a time is enforced with
//! an advisory lock file; readers never block (WAL mode).

mod codes;
mod graph;
mod intents;
mod read;
mod text;
mod vectors;
mod write;

pub use graph::{BindingRow, EdgeRow, GraphFile, GraphSymbol, MetricsRow, NewEdge, RefRow};
pub use intents::{IntentRow, IntentSubject};
pub use read::{FileRow, IndexStats, SymbolKey, SymbolQuery, SymbolRow};
pub use vectors::{EmbedProgress, EmbedTotals, PointRow, UnitFilter, UnitText};
pub use write::{FileRecord, Writer};

use ken_core::{Language, SymbolKind};
use rusqlite::{Connection, OpenFlags};
use std::fs::File;
use std::path::{Path, PathBuf};

/// SQL without its comments and runs of whitespace. SQLite keeps each
/// `CREATE` statement's text as written, and reads it back on every open:
/// the schema files' comments and aligned columns were 6 KB of every index,
/// most of a small crate's schema pages.
fn minified(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                out.push(c);
            }
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c if c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

/// Schema migrations, in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    include_str!("schema.sql"),
    include_str!("schema_v2.sql"),
    include_str!("schema_v3.sql"),
    include_str!("schema_v4.sql"),
    include_str!("schema_v5.sql"),
    include_str!("schema_v6.sql"),
    include_str!("schema_v7.sql"),
    include_str!("schema_v8.sql"),
    include_str!("schema_v9.sql"),
    include_str!("schema_v10.sql"),
];

pub const DB_FILE: &str = "index.sqlite";

/// Below this size (at 4 KB pages) compaction rewrites an index with 1 KB
/// pages. A table or index takes a page at least, and each leaves its last
/// one part empty: a tenth of a small crate's index. Larger indexes grow
/// with small pages (more page headers and overflow chains): tokio's
/// 17.0 MB became 17.4 MB.
const SMALL_INDEX_BYTES: i64 = 4 << 20;

/// Below this size (at 1 KB pages) compaction also tries 512-byte pages
/// and keeps whichever page size makes the file smaller: the schema's 37
/// tables and indexes take 37 KB at 1 KB pages, most of a 40 KB crate's
/// index. Which wins depends on the rows, not only the size (anyhow 1.0.93,
/// 602 KB: 512-byte pages 3% smaller; clap_complete 4.6.6, 593 KB: 5%
/// larger), so both are tried; rewriting an index this small takes
/// milliseconds.
const TINY_INDEX_BYTES: i64 = 2 << 20;

/// How long a connection waits for another one's lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
const LOCK_FILE: &str = "lock";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create or write the index directory {path}: {source}; pass a writable --index-dir or set KEN_INDEX_DIR")]
    NotWritable { path: PathBuf, source: std::io::Error },
    #[error("another ken process is writing the index in {0}; wait for it to finish and try again")]
    Locked(PathBuf),
    #[error("no index in {0}; run `ken index` first")]
    Missing(PathBuf),
    #[error("the index in {path} is damaged ({detail}); run `ken index --rebuild`")]
    Corrupt { path: PathBuf, detail: String },
    #[error(
        "the index in {path} has schema version {found}, newer than this ken supports ({supported}); upgrade ken or run `ken index --rebuild`"
    )]
    TooNew { path: PathBuf, found: i64, supported: i64 },
    #[error(
        "the index in {path} was written by an older ken and cannot be updated here ({detail}); run `ken index` where it can be written"
    )]
    Outdated { path: PathBuf, detail: String },
    #[error(
        "the disk holding the index is full ({0}); free some space or pass --index-dir on another disk, then run `ken index` again: it resumes from its last commit"
    )]
    DiskFull(String),
    #[error("the index cannot be written ({0}); make its directory writable or pass --index-dir, then run again")]
    ReadOnly(String),
    #[error(
        "the index holds the {what} `{value}`, which this version of ken does not know: another version wrote it; run `ken index --rebuild`"
    )]
    UnknownValue { what: &'static str, value: String },
    #[error("index database error: {0}")]
    Sqlite(rusqlite::Error),
}

/// A column value outside a typed domain (a kind, language or relation this
/// version does not know), carried through rusqlite to [`StoreError::UnknownValue`].
#[derive(Debug, thiserror::Error)]
#[error("unknown {what} `{value}`")]
pub(crate) struct UnknownValue {
    pub(crate) what: &'static str,
    pub(crate) value: String,
}

/// Column `idx` of `row` parsed into a typed domain value.
pub(crate) fn typed<T>(row: &rusqlite::Row, idx: usize, what: &'static str, parse: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let text: String = row.get(idx)?;
    parse(&text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(UnknownValue { what, value: text }))
    })
}

pub(crate) fn symbol_kind(row: &rusqlite::Row, idx: usize) -> rusqlite::Result<SymbolKind> {
    typed(row, idx, "symbol kind", SymbolKind::parse)
}

pub(crate) fn language(row: &rusqlite::Row, idx: usize) -> rusqlite::Result<Language> {
    typed(row, idx, "language", Language::from_name)
}

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> StoreError {
        if let rusqlite::Error::FromSqlConversionFailure(_, _, source) = &err
            && let Some(unknown) = source.downcast_ref::<UnknownValue>()
        {
            return StoreError::UnknownValue { what: unknown.what, value: unknown.value.clone() };
        }
        match err.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DiskFull) => StoreError::DiskFull(err.to_string()),
            Some(rusqlite::ErrorCode::ReadOnly) => StoreError::ReadOnly(err.to_string()),
            _ => StoreError::Sqlite(err),
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// An open index. Holds the writer lock when opened with [`Store::open_for_write`].
pub struct Store {
    conn: Connection,
    dir: PathBuf,
    _lock: Option<File>,
}

impl Store {
    /// Opens (creating if needed) the index in `dir` for writing, taking the lock.
    pub fn open_for_write(dir: &Path) -> Result<Store> {
        Store::open_writer(dir, false)
    }

    /// Takes the lock, deletes any index in `dir` (damaged or not) and
    /// creates an empty one.
    pub fn create_fresh(dir: &Path) -> Result<Store> {
        Store::open_writer(dir, true)
    }

    fn open_writer(dir: &Path, fresh: bool) -> Result<Store> {
        let not_writable = |source| StoreError::NotWritable { path: dir.to_path_buf(), source };
        std::fs::create_dir_all(dir).map_err(not_writable)?;
        let lock = File::options().create(true).truncate(false).write(true).open(dir.join(LOCK_FILE)).map_err(not_writable)?;
        match fs4::fs_std::FileExt::try_lock_exclusive(&lock) {
            Ok(true) => {}
            Ok(false) => return Err(StoreError::Locked(dir.to_path_buf())),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Err(StoreError::Locked(dir.to_path_buf())),
            Err(e) => return Err(not_writable(e)),
        }
        if fresh {
            Store::destroy(dir)?;
        }
        let conn = Connection::open(dir.join(DB_FILE)).map_err(|e| classify(dir, e))?;
        text::register(&conn)?;
        let mut store = Store { conn, dir: dir.to_path_buf(), _lock: Some(lock) };
        store.configure().map_err(|e| classify(dir, e))?;
        store.migrate()?;
        Ok(store)
    }

    /// A second connection to this writer's index, for work that runs beside
    /// it in the same process (linking while the BM25 points are written).
    /// It shares this store's writer lock, so it must not outlive it; write
    /// transactions of the two take turns (each begins IMMEDIATE).
    pub fn sibling(&self) -> Result<Store> {
        let conn = Connection::open(self.dir.join(DB_FILE)).map_err(|e| classify(&self.dir, e))?;
        text::register(&conn)?;
        let mut store = Store { conn, dir: self.dir.clone(), _lock: None };
        store.configure().map_err(|e| classify(&self.dir, e))?;
        // Each waits as long as the other's batch may take to commit, and
        // polls often: SQLite's own timeout backs off to 100 ms sleeps,
        // which left a core idle whenever the two took turns.
        fn poll_for_a_minute(attempt: i32) -> bool {
            std::thread::sleep(std::time::Duration::from_millis(1));
            attempt < 60_000
        }
        for conn in [&store.conn, &self.conn] {
            conn.busy_handler(Some(poll_for_a_minute))?;
        }
        Ok(store)
    }

    /// Opens an existing index for reading. Never blocks on a running writer.
    pub fn open_read_only(dir: &Path) -> Result<Store> {
        let db = dir.join(DB_FILE);
        if !db.is_file() {
            return Err(StoreError::Missing(dir.to_path_buf()));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&db, flags).map_err(|e| classify(dir, e))?;
        text::register(&conn)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let mut store = Store { conn, dir: dir.to_path_buf(), _lock: None };
        let version = match store.schema_version() {
            // A WAL database needs its `-shm` file, which a read-only
            // directory (a read-only mount, another user's index) cannot
            // get. With no write-ahead log left there is nothing but the
            // database file to read, and SQLite can read it as immutable.
            Err(e)
                if matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly))
                    && std::fs::metadata(dir.join(format!("{DB_FILE}-wal"))).map_or(true, |m| m.len() == 0) =>
            {
                let uri = format!("file:{}?immutable=1", uri_path(&db));
                store.conn = Connection::open_with_flags(&uri, flags | OpenFlags::SQLITE_OPEN_URI).map_err(|e| classify(dir, e))?;
                text::register(&store.conn)?;
                store.schema_version().map_err(|e| classify(dir, e))?
            }
            other => other.map_err(|e| classify(dir, e))?,
        };
        if version == 0 {
            return Err(StoreError::Missing(dir.to_path_buf()));
        }
        if version > MIGRATIONS.len() as i64 {
            return Err(StoreError::TooNew { path: dir.to_path_buf(), found: version, supported: MIGRATIONS.len() as i64 });
        }
        if version < MIGRATIONS.len() as i64 {
            // An older ken wrote it: migrate it once, as the next writer would.
            drop(store);
            return match Store::open_for_write(dir) {
                Ok(writer) => {
                    drop(writer);
                    Store::open_read_only(dir)
                }
                Err(e @ StoreError::Locked(_)) => Err(e),
                Err(e) => Err(StoreError::Outdated { path: dir.to_path_buf(), detail: e.to_string() }),
            };
        }
        Ok(store)
    }

    fn destroy(dir: &Path) -> Result<()> {
        for name in [DB_FILE.to_string(), format!("{DB_FILE}-wal"), format!("{DB_FILE}-shm")] {
            match std::fs::remove_file(dir.join(name)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(StoreError::NotWritable { path: dir.to_path_buf(), source }),
            }
        }
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn configure(&mut self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        // In WAL mode, NORMAL keeps every commit safe from a killed process.
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.conn.pragma_update(None, "foreign_keys", "ON")?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        self.conn.pragma_update(None, "cache_size", -65536)?;
        Ok(())
    }

    fn schema_version(&self) -> rusqlite::Result<i64> {
        self.conn.pragma_query_value(None, "user_version", |r| r.get(0))
    }

    fn migrate(&mut self) -> Result<()> {
        let version = self.schema_version().map_err(|e| classify(&self.dir, e))?;
        let supported = MIGRATIONS.len() as i64;
        if version > supported {
            return Err(StoreError::TooNew { path: self.dir.clone(), found: version, supported });
        }
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            // Borrows only the connection: `classify` below needs `self.dir`.
            let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            tx.execute_batch(&minified(migration)).map_err(|e| classify(&self.dir, e))?;
            tx.pragma_update(None, "user_version", i as i64 + 1)?;
            tx.commit()?;
        }
        Ok(())
    }

    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        Ok(self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute("INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2", [key, value])?;
        Ok(())
    }

    /// A write transaction. It takes the write lock at BEGIN (IMMEDIATE),
    /// so a sibling connection's commit can never invalidate a snapshot it
    /// already read from (which SQLite reports as busy without waiting).
    fn write_tx(&mut self) -> rusqlite::Result<rusqlite::Transaction<'_>> {
        self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
    }

    /// Starts a transaction for a batch of file changes.
    pub fn writer(&mut self) -> Result<Writer<'_>> {
        Writer::new(self.write_tx()?)
    }

    /// Rewrites the database densely: the BM25 index's segments merged into
    /// one (dropping what deletions left behind), then `VACUUM`, which
    /// rebuilds every table and index in key order with full pages. A
    /// Django-sized index shrinks by about 8% (47 MB → 43 MB) in about half
    /// a second. Atomic like any transaction: a run killed meanwhile leaves
    /// the index as it was.
    ///
    /// A small index is rewritten with 1 KB pages (see [`SMALL_INDEX_BYTES`]),
    /// a tiny one with 512-byte pages where that makes it smaller.
    /// Only a rollback journal lets `VACUUM` change the page size, so the
    /// database leaves WAL for the rewrite when no other connection has it
    /// open (else the page size stays); readers that open it meanwhile wait
    /// for the rewrite, a fraction of a second at this size.
    pub fn compact(&mut self) -> Result<()> {
        self.conn.execute_batch("INSERT INTO lexical(lexical) VALUES ('optimize');")?;
        let page_size = self.page_size()?;
        let wanted = if self.used_bytes()? < SMALL_INDEX_BYTES { 1024 } else { 4096 };
        // `VACUUM` builds the copy in a temporary database: in memory, with
        // the connection's `temp_store`, it cost as much RAM as the index
        // (numpy's 129 MB, windows-sys's 164 MB); in a file it costs disk.
        self.conn.pragma_update(None, "temp_store", "FILE")?;
        let vacuumed = self.vacuum(wanted, page_size).and_then(|()| self.try_tiny_pages());
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        vacuumed
    }

    /// Rewrites a tiny index with 512-byte pages, and back if that made it
    /// no smaller (see [`TINY_INDEX_BYTES`]).
    fn try_tiny_pages(&mut self) -> Result<()> {
        let at_1k = self.used_bytes()?;
        if self.page_size()? != 1024 || at_1k >= TINY_INDEX_BYTES {
            return Ok(());
        }
        self.vacuum(512, 1024)?;
        if self.page_size()? == 512 && self.used_bytes()? >= at_1k {
            self.vacuum(1024, 512)?;
        }
        Ok(())
    }

    fn page_size(&self) -> Result<i64> {
        Ok(self.conn.pragma_query_value(None, "page_size", |r| r.get(0))?)
    }

    /// The bytes of the database's pages in use.
    fn used_bytes(&self) -> Result<i64> {
        let pages: i64 = self.conn.pragma_query_value(None, "page_count", |r| r.get(0))?;
        let free: i64 = self.conn.pragma_query_value(None, "freelist_count", |r| r.get(0))?;
        Ok((pages - free) * self.page_size()?)
    }

    fn vacuum(&mut self, wanted: i64, page_size: i64) -> Result<()> {
        if wanted != page_size && self.leave_wal()? {
            let rewritten = self.conn.execute_batch(&format!("PRAGMA page_size = {wanted}; VACUUM;"));
            // Nothing to checkpoint: the rewrite went to the database file.
            self.conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))?;
            return Ok(rewritten?);
        }
        self.conn.execute_batch("VACUUM;")?;
        self.checkpoint()
    }

    /// Switches the database to a rollback journal if no other connection
    /// has it open; `false` if one has (it stays in WAL).
    fn leave_wal(&self) -> Result<bool> {
        self.conn.busy_timeout(std::time::Duration::ZERO)?;
        let mode = self.conn.pragma_update_and_check(None, "journal_mode", "DELETE", |r| r.get::<_, String>(0));
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        match mode {
            Ok(mode) => Ok(mode.eq_ignore_ascii_case("delete")),
            Err(e) if matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)) => {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Truncates the write-ahead log so the database file is self-contained.
    pub fn checkpoint(&self) -> Result<()> {
        self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
        Ok(())
    }
}

/// A path as the path of a `file:` URI: everything but unreserved
/// characters and `/` percent-encoded.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Maps SQLite's "not a database" family of errors to a rebuild hint.
fn classify(dir: &Path, err: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode::*;
    match err.sqlite_error_code() {
        Some(NotADatabase | DatabaseCorrupt) => StoreError::Corrupt { path: dir.to_path_buf(), detail: err.to_string() },
        Some(ReadOnly | CannotOpen | PermissionDenied) => StoreError::NotWritable {
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, err.to_string()),
        },
        Some(DatabaseBusy | DatabaseLocked) => StoreError::Locked(dir.to_path_buf()),
        _ => StoreError::from(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ken_core::{RefKind, Relation, Resolution};

    /// An index an older ken wrote (schema version 7: the graph's enums as
    /// text, references with their own ids) reads the same after the first
    /// open migrates it.
    #[test]
    fn a_version_7_index_reads_the_same_after_migration() {
        let dir = tempfile::tempdir().unwrap();
        {
            let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
            for migration in &MIGRATIONS[..7] {
                conn.execute_batch(migration).unwrap();
            }
            conn.pragma_update(None, "user_version", 7).unwrap();
            conn.execute_batch(
                "INSERT INTO files(id, path, language, size, mtime_ns, hash, module, lines, parse_errors, linked)
                     VALUES (1, 'a.py', 'python', 10, 0, 'h', 'a', 3, 0, 1),
                            (2, 'b.py', 'python', 10, 0, '427e86b2607cab428088ebaad5575765', 'b', 3, 0, 1);
                 INSERT INTO symbols(id, file_id, ordinal, parent_id, kind, name, local_path, qualified_name, signature,
                     start_byte, end_byte, start_line, start_col, end_line, end_col, name_line, name_col)
                     VALUES (1, 1, 0, NULL, 'module', 'a', '', 'a', '', 0, 10, 1, 1, 3, 1, 1, 1),
                            (2, 1, 1, 1, 'function', 'f', 'f', 'a.f', 'def f()', 0, 10, 1, 1, 3, 1, 1, 5);
                 INSERT INTO refs(id, file_id, enclosing_id, kind, name, qualifier, alias, line, col, loose_src)
                     VALUES (7, 1, 2, 'call', 'g', NULL, NULL, 2, 5, 2),
                            (9, 1, 2, 'field_use', 'x', 'self', NULL, 3, 5, NULL);
                 INSERT INTO edges(file_id, ordinal, src_id, dst_id, relation, resolution, name, qualifier, line, col)
                     VALUES (1, 0, 2, 2, 'calls', 'unique_name', 'f', NULL, 3, 9);",
            )
            .unwrap();
        }
        let store = Store::open_read_only(dir.path()).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
        let refs: Vec<(RefKind, String, Option<String>)> = store
            .graph_refs(&[RefKind::Call, RefKind::FieldUse], Some(&[1]))
            .unwrap()
            .into_iter()
            .map(|r| (r.kind, r.name, r.qualifier))
            .collect();
        assert_eq!(refs, [(RefKind::Call, "g".into(), None), (RefKind::FieldUse, "x".into(), Some("self".into()))]);
        let edges: Vec<String> = store
            .all_edges()
            .unwrap()
            .iter()
            .map(|e| format!("{} -> {:?} {} {} {}", e.src, e.dst, e.relation, e.resolution, e.name))
            .collect();
        assert_eq!(edges, ["1 -> Some(2) parent_of exact f", "2 -> Some(2) calls unique_name f", "2 -> None calls unresolved g"]);
        assert_eq!(store.loose_edges_named("g", &[]).unwrap().len(), 1);
        // Version 10 keeps a hex content hash as its bytes, and reads it back as it was written.
        let mut hashes: Vec<(String, String)> = store.file_rows().unwrap().into_iter().map(|f| (f.path, f.hash)).collect();
        hashes.sort();
        assert_eq!(hashes, [("a.py".into(), "h".into()), ("b.py".into(), "427e86b2607cab428088ebaad5575765".into())]);
        let stored: String = store.conn.query_row("SELECT typeof(hash) FROM files WHERE id = 2", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, "blob");
    }

    /// A store with one linked file `a.py`: its module and functions `f`
    /// and `g`, and `f`'s references (a call of `g` and a field use).
    fn one_file_store(dir: &Path) -> Store {
        let store = Store::open_for_write(dir).unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO files(id, path, language, size, mtime_ns, hash, module, lines, parse_errors, linked)
                     VALUES (1, 'a.py', 'python', 10, 0, 'h', 'a', 3, 0, 1);
                 INSERT INTO symbols(id, file_id, ordinal, parent_id, kind, name, local_path, qualified_name, signature,
                     start_byte, end_byte, start_line, start_col, end_line, end_col, name_line, name_col)
                     VALUES (1, 1, 0, NULL, 'module', 'a', '', 'a', '', 0, 10, 1, 1, 3, 1, 1, 1),
                            (2, 1, 1, 1, 'function', 'f', 'f', 'a.f', 'def f()', 0, 10, 1, 1, 3, 1, 1, 5),
                            (3, 1, 2, 1, 'function', 'g', 'g', 'a.g', 'def g()', 0, 10, 4, 1, 5, 1, 4, 5);
                 INSERT INTO refs(file_id, ordinal, enclosing_id, kind, name, qualifier, alias, line, col)
                     VALUES (1, 0, 2, 1, 'g', 'm', NULL, 2, 5), (1, 1, 2, 5, 'x', 'self', NULL, 3, 5);",
            )
            .unwrap();
        store
    }

    /// A resolved edge that repeats its reference names it instead; one
    /// found by a name only, or with no reference at its position, keeps
    /// its own. Every read puts them back whole.
    #[test]
    fn a_resolved_edge_names_its_reference_and_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = one_file_store(dir.path());
        let edge = |dst, resolution, name: &str, qualifier: Option<&str>, line| NewEdge {
            src_id: 2,
            dst_id: Some(dst),
            relation: Relation::Calls,
            resolution,
            name: name.into(),
            qualifier: qualifier.map(Into::into),
            line,
            col: 5,
        };
        let edges = [
            edge(3, Resolution::Exact, "g", Some("m"), 2),
            edge(3, Resolution::UniqueName, "g", Some("m"), 2),
            edge(3, Resolution::Exact, "g", None, 2),
            edge(3, Resolution::Exact, "g", Some("m"), 9),
        ];
        let writer = store.writer().unwrap();
        writer.put_links(1, &edges, &[]).unwrap();
        writer.commit().unwrap();
        let stored: Vec<(Option<String>, Option<i64>)> = store
            .conn
            .prepare("SELECT name, ref_ordinal FROM edges ORDER BY ordinal")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(stored, [(None, Some(0)), (Some("g".into()), None), (Some("g".into()), None), (Some("g".into()), None)]);
        let read: Vec<String> = store
            .edges_from(2, &[Relation::Calls])
            .unwrap()
            .iter()
            .map(|e| format!("{} {:?} {}:{} {}", e.name, e.qualifier, e.line, e.col, e.resolution))
            .collect();
        assert_eq!(read, ["g Some(\"m\") 2:5 exact", "g Some(\"m\") 2:5 unique_name", "g None 2:5 exact", "g Some(\"m\") 9:5 exact"]);
        assert_eq!(store.all_edges().unwrap().iter().filter(|e| e.relation == Relation::Calls).count(), 4);
    }

    /// The schema is stored as SQL without comments or runs of whitespace
    /// (string literals kept as written).
    #[test]
    fn the_schema_is_stored_minified() {
        assert_eq!(
            minified("CREATE TABLE t (\n    a   TEXT, -- a note\n    b TEXT DEFAULT '  --x'\n);"),
            "CREATE TABLE t ( a TEXT, b TEXT DEFAULT '  --x' );"
        );
        let dir = tempfile::tempdir().unwrap();
        let store = one_file_store(dir.path());
        let sql: Vec<String> = store
            .conn
            .prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(sql.len() > 30, "{sql:?}");
        assert!(sql.iter().all(|s| !s.contains("--") && !s.contains("  ") && !s.contains('\n')), "{sql:?}");
    }

    /// A small index is rewritten with small pages, goes back to WAL and
    /// reads the same; with another connection open it keeps its pages.
    #[test]
    fn a_small_index_is_compacted_into_small_pages() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = one_file_store(dir.path());
        let page_size = |s: &Store| s.conn.pragma_query_value(None, "page_size", |r| r.get::<_, i64>(0)).unwrap();
        let journal = |s: &Store| s.conn.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0)).unwrap();
        let reader = Store::open_read_only(dir.path()).unwrap();
        assert_eq!(reader.symbols_with_qualified_name("a.g").unwrap().len(), 1);
        store.compact().unwrap();
        assert_eq!((page_size(&store), journal(&store)), (4096, "wal".to_string()));
        drop(reader);
        store.compact().unwrap();
        // One file: the schema's pages are most of it, and half pages halve them.
        assert_eq!((page_size(&store), journal(&store)), (512, "wal".to_string()));
        store.set_meta("after", "compaction").unwrap();
        let reader = Store::open_read_only(dir.path()).unwrap();
        assert_eq!(reader.symbols_with_qualified_name("a.g").unwrap().len(), 1);
        assert_eq!(reader.refs_named("x", RefKind::FieldUse).unwrap().len(), 1);
        assert_eq!(reader.meta("after").unwrap().as_deref(), Some("compaction"));
        store.checkpoint().unwrap();
    }

    /// The lookups schema version 9 serves with partial and expression
    /// indexes still use them (a bound parameter where the planner needs a
    /// literal, or a rewritten condition, falls back to a scan).
    #[test]
    fn lookups_by_name_use_their_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let store = one_file_store(dir.path());
        let plan = |sql: &str, name: Option<&str>| -> String {
            let mut stmt = store.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            if let Some(name) = name {
                stmt.raw_bind_parameter(1, name).unwrap();
            }
            let mut rows = stmt.raw_query();
            let mut steps = Vec::new();
            while let Some(row) = rows.next().unwrap() {
                steps.push(row.get::<_, String>(3).unwrap());
            }
            steps.join("; ")
        };
        let qualified = plan(&format!("SELECT s.id FROM symbols s WHERE {}", read::QUALIFIED_NAME_IS), Some("a.g"));
        assert!(qualified.contains("USING INDEX symbols_qualified_tail"), "{qualified}");
        let field_uses = plan(&graph::refs_named_sql(RefKind::FieldUse), Some("x"));
        assert!(field_uses.contains("USING INDEX refs_field_uses"), "{field_uses}");
        let parents = plan(&graph::IMPLIED_PARENT_EDGES, None);
        assert!(parents.contains("INDEX edges_parent"), "{parents}");
    }
}

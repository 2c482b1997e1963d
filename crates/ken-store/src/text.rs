//! File text, stored once and compressed (zstd): symbols and chunks are
//! spans of it, read through the SQL function `ken_slice(text, start, len)`.
//! Source compresses about fourfold, and the index has no other copy of it.
//!
//! A row written before compression holds plain TEXT; `ken_slice` reads
//! both, so an index migrates file by file as files are mined again.

use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;
use std::sync::{Arc, Mutex};

/// zstd's level. On sympy 1.13.3's 1,982 files (30.5 MB), one file at a
/// time: level 3 8.50 MB in 0.2 s, 6 7.93 MB in 0.6 s, 9 7.81 MB in 1.0 s,
/// 19 7.50 MB in 23 s. 6 takes most of what is to be had for little time.
const LEVEL: i32 = 6;

/// The stored form of a file's text.
pub fn compress(text: &str) -> Vec<u8> {
    zstd::bulk::compress(text.as_bytes(), LEVEL).expect("compressing into memory cannot fail")
}

/// The last text decompressed, by a hash of its stored bytes: a query reads
/// the spans of one file in a row (symbols and chunks are ordered by file).
type LastText = Arc<Mutex<Option<(u64, Arc<Vec<u8>>)>>>;

/// Registers `ken_slice(text, start, len)`: `len` bytes of the file text
/// from byte `start` (0-based), as TEXT.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let last: LastText = Arc::default();
    conn.create_scalar_function("ken_slice", 3, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
        slice(ctx, &last)
    })
}

fn slice(ctx: &Context, last: &LastText) -> rusqlite::Result<String> {
    let start = ctx.get::<i64>(1)?.max(0) as usize;
    let len = ctx.get::<i64>(2)?.max(0) as usize;
    let cut = |bytes: &[u8]| {
        let end = (start + len).min(bytes.len());
        String::from_utf8_lossy(bytes.get(start.min(end)..end).unwrap_or_default()).into_owned()
    };
    match ctx.get_raw(0) {
        ValueRef::Text(plain) => Ok(cut(plain)),
        ValueRef::Blob(stored) => {
            let key = xxhash_rust::xxh3::xxh3_64(stored);
            let mut slot = last.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((k, bytes)) = slot.as_ref()
                && *k == key
            {
                return Ok(cut(bytes));
            }
            let bytes = Arc::new(decompress(stored).map_err(|e| rusqlite::Error::UserFunctionError(e.into()))?);
            *slot = Some((key, bytes.clone()));
            Ok(cut(&bytes))
        }
        ValueRef::Null => Ok(String::new()),
        _ => Err(rusqlite::Error::UserFunctionError("ken_slice: the file text is neither text nor a blob".into())),
    }
}

/// Docstrings this long or longer are stored compressed: Rust's and
/// JSDoc's run to kilobytes of examples, and shorter ones gain nothing.
const DOC_COMPRESS_FROM: usize = 256;

/// The stored form of a docstring: plain text when short, else zstd (when
/// that is smaller).
pub fn stored_doc(doc: Option<&str>) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match doc {
        None => Value::Null,
        Some(doc) if doc.len() < DOC_COMPRESS_FROM => Value::Text(doc.to_owned()),
        Some(doc) => {
            let packed = compress(doc);
            if packed.len() < doc.len() { Value::Blob(packed) } else { Value::Text(doc.to_owned()) }
        }
    }
}

/// Reads a docstring column written by [`stored_doc`] (or before it, plain).
pub fn doc_column(r: &rusqlite::Row, idx: usize) -> rusqlite::Result<Option<String>> {
    match r.get_ref(idx)? {
        ValueRef::Null => Ok(None),
        ValueRef::Text(plain) => Ok(Some(String::from_utf8_lossy(plain).into_owned())),
        ValueRef::Blob(stored) => {
            let bytes =
                decompress(stored).map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Blob, e.into()))?;
            Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
        }
        _ => Err(rusqlite::Error::InvalidColumnType(idx, "docstring".into(), rusqlite::types::Type::Integer)),
    }
}

fn decompress(stored: &[u8]) -> std::io::Result<Vec<u8>> {
    zstd::stream::decode_all(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_plain_and_compressed_text() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let text = "def f():\n    return 'é'\n";
        for stored in [rusqlite::types::Value::Text(text.into()), rusqlite::types::Value::Blob(compress(text))] {
            let got: String = conn.query_row("SELECT ken_slice(?1, 4, 4)", [&stored], |r| r.get(0)).unwrap();
            assert_eq!(got, "f():");
            let tail: String = conn.query_row("SELECT ken_slice(?1, 13, 100)", [&stored], |r| r.get(0)).unwrap();
            assert_eq!(tail, "return 'é'\n");
        }
    }

    #[test]
    fn docstrings_round_trip_short_long_and_absent() {
        let conn = Connection::open_in_memory().unwrap();
        let long = "Returns the élan of `x`.\n\n# Examples\n".repeat(20);
        for doc in [None, Some("short"), Some(long.as_str())] {
            let stored = stored_doc(doc);
            assert_eq!(matches!(stored, rusqlite::types::Value::Blob(_)), doc.is_some_and(|d| d.len() >= DOC_COMPRESS_FROM));
            let back = conn.query_row("SELECT ?1", [&stored], |r| doc_column(r, 0)).unwrap();
            assert_eq!(back.as_deref(), doc);
        }
    }
}

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
/// Registers `ken_docstring(text, start, len)` too: the Python docstring
/// whose literal is those bytes.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let last: LastText = Arc::default();
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let for_slice = last.clone();
    conn.create_scalar_function("ken_slice", 3, flags, move |ctx| slice(ctx, &for_slice))?;
    conn.create_scalar_function("ken_docstring", 3, flags, move |ctx| {
        let place = ctx.get_raw(2).as_blob().map_err(|e| rusqlite::Error::UserFunctionError(e.into()))?;
        let (offset, len) =
            read_place(place).ok_or_else(|| rusqlite::Error::UserFunctionError("ken_docstring: not a docstring's place".into()))?;
        let start = ctx.get::<i64>(1)?.max(0) as usize + offset;
        Ok(ken_core::docstring::python_docstring(&text_slice(ctx, &last, start, len)?))
    })
}

fn slice(ctx: &Context, last: &LastText) -> rusqlite::Result<String> {
    let start = ctx.get::<i64>(1)?.max(0) as usize;
    let len = ctx.get::<i64>(2)?.max(0) as usize;
    text_slice(ctx, last, start, len)
}

/// `len` bytes from `start` of the file text in argument 0.
fn text_slice(ctx: &Context, last: &LastText, start: usize, len: usize) -> rusqlite::Result<String> {
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

/// The stored form of a docstring: where a Python docstring's literal sits
/// in `source` (the symbol's own text, which the file text holds), as an
/// integer; else plain text when short, else zstd (when that is smaller).
/// Schema version 9: sympy's 44,700 symbols held 2.95 MB of docstrings,
/// a copy of what the file text already had.
pub fn stored_doc(doc: Option<&str>, source: &str) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match doc {
        None => Value::Null,
        Some(doc) if let Some((offset, len)) = python_literal(source, doc) => Value::Blob(place_blob(offset, len)),
        Some(doc) if doc.len() < DOC_COMPRESS_FROM => Value::Text(doc.to_owned()),
        Some(doc) => {
            let packed = compress(doc);
            if packed.len() < doc.len() { Value::Blob(packed) } else { Value::Text(doc.to_owned()) }
        }
    }
}

/// Where in `source` the Python string literal that cleans to `doc` is:
/// `(offset, len)`, found from the doc's first line back to the quotes
/// before it, and kept only when it reads back exactly.
fn python_literal(source: &str, doc: &str) -> Option<(usize, usize)> {
    let first = doc.lines().next()?.trim();
    if first.is_empty() {
        return None;
    }
    let bytes = source.as_bytes();
    source.match_indices(first).take(4).find_map(|(at, _)| {
        let quote_at = source[..at].rfind(['"', '\''])?;
        let quote = bytes[quote_at];
        let triple = quote_at >= 2 && bytes[quote_at - 2] == quote && bytes[quote_at - 1] == quote;
        let mut start = if triple { quote_at - 2 } else { quote_at };
        while start > 0 && b"rRuUbBfF".contains(&bytes[start - 1]) {
            start -= 1;
        }
        let closer = if triple { &source[quote_at - 2..=quote_at] } else { &source[quote_at..=quote_at] };
        let end = quote_at + 1 + source[quote_at + 1..].find(closer)? + closer.len();
        let len = end - start;
        (len < 1 << 24 && ken_core::docstring::python_docstring(&source[start..end]) == doc).then_some((start, len))
    })
}

/// A docstring's place as stored: a zero byte (zstd's frames start with
/// 0x28), then the offset from the symbol's start and the length as LEB128.
/// A blob, because the column's text affinity turns integers into text.
fn place_blob(offset: usize, len: usize) -> Vec<u8> {
    let mut out = vec![0u8];
    for mut n in [offset, len] {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            out.push(if n == 0 { byte } else { byte | 0x80 });
            if n == 0 {
                break;
            }
        }
    }
    out
}

fn read_place(blob: &[u8]) -> Option<(usize, usize)> {
    let mut numbers = [0usize; 2];
    let mut rest = blob.strip_prefix(&[0])?;
    for n in &mut numbers {
        let mut shift = 0;
        loop {
            let (&byte, tail) = rest.split_first()?;
            rest = tail;
            *n |= ((byte & 0x7f) as usize).checked_shl(shift)?;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
    }
    Some((numbers[0], numbers[1]))
}

/// The docstring column of symbols `s` as text, an SQL expression: a
/// docstring kept as its literal's place (see [`stored_doc`]) is read back
/// from `$file_text`, the file's stored text (evaluated only for those).
macro_rules! docstring_sql {
    ($file_text:literal) => {
        concat!(
            "CASE WHEN typeof(s.docstring) = 'blob' AND substr(s.docstring, 1, 1) = x'00' THEN ken_docstring(",
            $file_text,
            ", s.start_byte, s.docstring) ELSE s.docstring END"
        )
    };
}
pub(crate) use docstring_sql;

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
    use expect_test::expect;

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
            let stored = stored_doc(doc, "");
            assert_eq!(matches!(stored, rusqlite::types::Value::Blob(_)), doc.is_some_and(|d| d.len() >= DOC_COMPRESS_FROM));
            let back = conn.query_row("SELECT ?1", [&stored], |r| doc_column(r, 0)).unwrap();
            assert_eq!(back.as_deref(), doc);
        }
    }

    /// A Python docstring is kept as its literal's place whenever that
    /// reads back exactly; anything else as text.
    #[test]
    fn python_docstrings_are_read_from_the_file_text() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let check = |source: &str, doc: &str, expect: expect_test::Expect| {
            let stored = stored_doc(Some(doc), source);
            // Through a table with the symbols' column affinity (text).
            conn.execute_batch("DROP TABLE IF EXISTS symbols; CREATE TABLE symbols(docstring TEXT, start_byte INTEGER)").unwrap();
            conn.execute("INSERT INTO symbols VALUES (?1, 0)", [&stored]).unwrap();
            let sql = concat!("SELECT ", docstring_sql!("?1"), " FROM symbols s");
            let read: String = conn.query_row(sql, [compress(source)], |r| r.get(0)).unwrap();
            assert_eq!(read, doc);
            expect.assert_eq(&match &stored {
                rusqlite::types::Value::Blob(place) if let Some((offset, len)) = read_place(place) => {
                    format!("at byte {offset}, {len} bytes")
                }
                other => format!("{other:?}"),
            });
        };
        check(
            "def f(x):\n    \"\"\"Return x.\n\n    More, indented.\n    \"\"\"\n    return x\n",
            "Return x.\n\nMore, indented.",
            expect!["at byte 14, 41 bytes"],
        );
        check("def f():\n    r'''Raw \\d.'''\n", "Raw \\d.", expect!["at byte 13, 14 bytes"]);
        check("def x(x):\n    'x'\n", "x", expect!["at byte 14, 3 bytes"]);
        // Not a literal that cleans to the doc (a doc comment, an escaped quote): text.
        check("/// Adds.\nfn add() {}\n", "Adds.", expect![[r#"Text("Adds.")"#]]);
        check("def f():\n    \"\"\"A \\\"quoted\\\" word.\"\"\"\n", "A \"quoted\" word.", expect![[r#"Text("A \"quoted\" word.")"#]]);
    }
}

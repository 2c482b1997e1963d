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

/// The last text decompressed, beside the stored bytes it came from: a
/// query reads the spans of one file in a row (symbols and chunks are
/// ordered by file). Recognised by comparing the stored bytes (a `memcmp`),
/// not by hashing them: hashing a file's whole blob for each of its spans
/// made SDL's 864 KB `SDL_opengl_glext.h` (13,000 symbols and chunks) spend
/// most of its indexing time in xxh3.
type LastText = Arc<Mutex<Option<(Vec<u8>, Arc<Vec<u8>>)>>>;

/// Registers `ken_slice(text, start, len)`: `len` bytes of the file text
/// from byte `start` (0-based), as TEXT.
/// Registers `ken_docstring(text, symbol_start, place)` too: the docstring
/// stored as its place in the file text (see [`stored_doc`]).
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let last: LastText = Arc::default();
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let for_slice = last.clone();
    conn.create_scalar_function("ken_slice", 3, flags, move |ctx| slice(ctx, &for_slice))?;
    conn.create_scalar_function("ken_docstring", 3, flags, move |ctx| {
        let blob = ctx.get_raw(2).as_blob().map_err(|e| rusqlite::Error::UserFunctionError(e.into()))?;
        let place =
            DocPlace::from_blob(blob).ok_or_else(|| rusqlite::Error::UserFunctionError("ken_docstring: not a docstring's place".into()))?;
        place.read(ctx, &last, ctx.get::<i64>(1)?.max(0) as usize)
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
            let mut slot = last.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((from, bytes)) = slot.as_ref()
                && from.as_slice() == stored
            {
                return Ok(cut(bytes));
            }
            let bytes = Arc::new(decompress(stored).map_err(|e| rusqlite::Error::UserFunctionError(e.into()))?);
            *slot = Some((stored.to_vec(), bytes.clone()));
            Ok(cut(&bytes))
        }
        ValueRef::Null => Ok(String::new()),
        _ => Err(rusqlite::Error::UserFunctionError("ken_slice: the file text is neither text nor a blob".into())),
    }
}

/// Docstrings this long or longer are stored compressed: Rust's and
/// JSDoc's run to kilobytes of examples, and shorter ones gain nothing.
const DOC_COMPRESS_FROM: usize = 256;

/// The stored form of a docstring: where the file text holds it (see
/// [`DocPlace`]), else plain text when short, else zstd (when that is
/// smaller). `text` is the file's and `symbol` the symbol's byte range.
/// Schema version 9: sympy's 44,700 symbols held 2.95 MB of docstrings, a
/// copy of what the file text already had.
pub fn stored_doc(doc: Option<&str>, text: &str, symbol: std::ops::Range<usize>) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match doc {
        None => Value::Null,
        Some(doc) if let Some(place) = DocPlace::find(doc, text, symbol).and_then(|p| p.to_blob()) => Value::Blob(place),
        Some(doc) if doc.len() < DOC_COMPRESS_FROM => Value::Text(doc.to_owned()),
        Some(doc) => {
            let packed = compress(doc);
            if packed.len() < doc.len() { Value::Blob(packed) } else { Value::Text(doc.to_owned()) }
        }
    }
}

/// Where a docstring's source sits, relative to its symbol's start, and
/// how it reads back: a Python string literal in the body, a document
/// section's first paragraph, or the doc comments above (`///`, `/** */`, `#`). Found from the doc's first and
/// last lines, and kept only when the text there reads back to the doc
/// exactly (decorators between the comments, escapes in the literal: no).
#[derive(Debug, PartialEq)]
enum DocPlace {
    /// `len` bytes from `offset` after the symbol's start.
    Literal { offset: usize, len: usize },
    /// `len` bytes from `back` before the symbol's start.
    Comments { back: usize, len: usize },
    /// A section's first paragraph, `len` bytes from `offset` after the
    /// symbol's start (a heading's docstring in a document).
    Paragraph { offset: usize, len: usize },
}

impl DocPlace {
    fn find(doc: &str, text: &str, symbol: std::ops::Range<usize>) -> Option<DocPlace> {
        let first = doc.lines().next()?.trim();
        if first.is_empty() {
            return None;
        }
        let source = text.get(symbol.clone())?;
        if let Some((offset, len)) = python_literal(source, first, doc) {
            return Some(DocPlace::Literal { offset, len });
        }
        if let Some((offset, len)) = paragraph(source, doc) {
            return Some(DocPlace::Paragraph { offset, len });
        }
        let before = text.get(..symbol.start)?;
        let (start, len) = comments_above(before, first, doc)?;
        Some(DocPlace::Comments { back: symbol.start - start, len })
    }

    /// The stored form: a kind byte below 3 (zstd's frames start with
    /// 0x28), then the two numbers as little-endian `u32`s. A blob, because
    /// the column's text affinity turns integers into text.
    fn to_blob(&self) -> Option<Vec<u8>> {
        let (kind, a, len) = match *self {
            DocPlace::Literal { offset, len } => (0u8, offset, len),
            DocPlace::Comments { back, len } => (1, back, len),
            DocPlace::Paragraph { offset, len } => (2, offset, len),
        };
        let mut out = vec![kind];
        out.extend(u32::try_from(a).ok()?.to_le_bytes());
        out.extend(u32::try_from(len).ok()?.to_le_bytes());
        Some(out)
    }

    fn from_blob(blob: &[u8]) -> Option<DocPlace> {
        let [kind, rest @ ..] = blob else { return None };
        let number = |at: usize| Some(u32::from_le_bytes(rest.get(at..at + 4)?.try_into().ok()?) as usize);
        let (a, len) = (number(0)?, number(4)?);
        match kind {
            0 => Some(DocPlace::Literal { offset: a, len }),
            1 => Some(DocPlace::Comments { back: a, len }),
            2 => Some(DocPlace::Paragraph { offset: a, len }),
            _ => None,
        }
    }

    /// The docstring, from the file text's bytes at the place.
    fn read(&self, ctx: &Context, last: &LastText, symbol_start: usize) -> rusqlite::Result<String> {
        Ok(match *self {
            DocPlace::Literal { offset, len } => ken_core::docstring::python_docstring(&text_slice(ctx, last, symbol_start + offset, len)?),
            DocPlace::Comments { back, len } => {
                ken_core::docstring::comment_docstring(&text_slice(ctx, last, symbol_start.saturating_sub(back), len)?)
            }
            DocPlace::Paragraph { offset, len } => {
                let region = text_slice(ctx, last, symbol_start + offset, len)?;
                ken_core::docstring::first_paragraph(region.lines()).map(|(text, _)| text).unwrap_or_default()
            }
        })
    }
}

/// The Python string literal in `source` that cleans to `doc`: `(offset,
/// len)`, from an occurrence of its first line back to the quotes.
fn python_literal(source: &str, first: &str, doc: &str) -> Option<(usize, usize)> {
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
        (ken_core::docstring::python_docstring(&source[start..end]) == doc).then_some((start, end - start))
    })
}

/// The lines of `source` (a section, from its heading) whose first
/// paragraph is `doc`: `(offset, len)`. The paragraph starts at one of the
/// first non-blank lines below the heading (an underlined heading takes
/// two).
fn paragraph(source: &str, doc: &str) -> Option<(usize, usize)> {
    let mut starts = Vec::new();
    let mut at = source.find('\n')? + 1;
    while starts.len() < 3 && at < source.len() {
        let end = source[at..].find('\n').map_or(source.len(), |n| at + n);
        if !source[at..end].trim().is_empty() {
            starts.push(at);
        }
        at = end + 1;
    }
    starts.into_iter().find_map(|start| {
        let (_, read) = ken_core::docstring::first_paragraph(source[start..].lines())?;
        let region = source.get(start..start + read.min(source.len() - start))?;
        // Checked on the very bytes that will be read back.
        let (text, _) = ken_core::docstring::first_paragraph(region.lines())?;
        (text == doc).then_some((start, region.len()))
    })
}

/// The comments at the end of `before` (the text above a symbol) that read
/// as `doc`: `(start, len)`. The region runs from up to three lines above
/// an occurrence of the doc's first line to up to two lines below the last
/// occurrence of its last line (a doc's last line is often a code fence,
/// which its examples open and close many times above).
fn comments_above(before: &str, first: &str, doc: &str) -> Option<(usize, usize)> {
    // A doc comment sits right above its symbol (past its attributes):
    // look no further back than twice its length and a few lines.
    let mut from = before.len().saturating_sub(2 * doc.len() + 2048);
    while !before.is_char_boundary(from) {
        from -= 1;
    }
    let last = doc.lines().last()?.trim();
    let last_at = from + before[from..].rfind(last)?;
    let line_start = |i: usize| before[..i].rfind('\n').map_or(0, |n| n + 1);
    let line_end = |i: usize| before[i..].find('\n').map_or(before.len(), |n| i + n);
    let mut ends = vec![line_end(last_at)];
    for _ in 0..2 {
        let &e = ends.last()?;
        if e >= before.len() {
            break;
        }
        ends.push(line_end(e + 1));
    }
    before[from..last_at + last.len()].rmatch_indices(first).take(3).find_map(|(at, _)| {
        let mut starts = vec![line_start(from + at)];
        for _ in 0..3 {
            let &s = starts.last()?;
            if s == 0 {
                break;
            }
            starts.push(line_start(s - 1));
        }
        starts.iter().find_map(|&s| {
            let s = s + (before[s..].len() - before[s..].trim_start().len());
            ends.iter().find(|&&e| e > s && ken_core::docstring::comment_docstring(&before[s..e]) == doc).map(|&e| (s, e - s))
        })
    })
}

/// The docstring column of symbols `s` as text, an SQL expression: a
/// docstring kept as its literal's place (see [`stored_doc`]) is read back
/// from `$file_text`, the file's stored text (evaluated only for those).
macro_rules! docstring_sql {
    ($file_text:literal) => {
        $crate::text::docstring_sql!("s", $file_text)
    };
    ($symbol:literal, $file_text:literal) => {
        concat!(
            "CASE WHEN typeof(",
            $symbol,
            ".docstring) = 'blob' AND substr(",
            $symbol,
            ".docstring, 1, 1) < x'03' THEN ken_docstring(",
            $file_text,
            ", ",
            $symbol,
            ".start_byte, ",
            $symbol,
            ".docstring) ELSE ",
            $symbol,
            ".docstring END"
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
            let stored = stored_doc(doc, "", 0..0);
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
        // `text` with its symbol from the `§` on (the `§` is not kept).
        let check = |text: &str, doc: &str, expect: expect_test::Expect| {
            let start = text.find('§').unwrap();
            let text = text.replacen('§', "", 1);
            let stored = stored_doc(Some(doc), &text, start..text.len());
            // Through a table with the symbols' column affinity (text).
            conn.execute_batch("DROP TABLE IF EXISTS symbols; CREATE TABLE symbols(docstring TEXT, start_byte INTEGER)").unwrap();
            conn.execute("INSERT INTO symbols VALUES (?1, ?2)", rusqlite::params![&stored, start as i64]).unwrap();
            let sql = concat!("SELECT ", docstring_sql!("?1"), " FROM symbols s");
            let read: String = conn.query_row(sql, [compress(&text)], |r| r.get(0)).unwrap();
            assert_eq!(read, doc);
            expect.assert_eq(&match &stored {
                rusqlite::types::Value::Blob(blob) if let Some(place) = DocPlace::from_blob(blob) => format!("{place:?}"),
                other => format!("{other:?}"),
            });
        };
        check(
            "x = 1\n§def f(x):\n    \"\"\"Return x.\n\n    More, indented.\n    \"\"\"\n    return x\n",
            "Return x.\n\nMore, indented.",
            expect!["Literal { offset: 14, len: 41 }"],
        );
        check("§def f():\n    r'''Raw \\d.'''\n", "Raw \\d.", expect!["Literal { offset: 13, len: 14 }"]);
        check("§def x(x):\n    'x'\n", "x", expect!["Literal { offset: 14, len: 3 }"]);
        check("use a;\n\n/// Adds.\n///\n/// Twice.\n§fn add() {}\n", "Adds.\n\nTwice.", expect!["Comments { back: 25, len: 24 }"]);
        check(
            "/**\n * Makes a `Thing`.\n * @param {number} n\n */\n§function make(n) {}\n",
            "Makes a `Thing`.\n@param {number} n",
            expect!["Comments { back: 49, len: 44 }"],
        );
        check("    # Counts.\n    §count = 0\n", "Counts.", expect!["Comments { back: 14, len: 9 }"]);
        check(
            "§## Install\n\nRun `pip install x`\n  to get it.\n\nMore.\n",
            "Run `pip install x` to get it.",
            expect!["Paragraph { offset: 12, len: 34 }"],
        );
        // What does not read back to the doc stays text: an attribute
        // between the comments, an escaped quote.
        check("/// A.\n#[inline]\n/// B.\n§fn f() {}\n", "A.\nB.", expect![[r#"Text("A.\nB.")"#]]);
        check("§def f():\n    \"\"\"A \\\"quoted\\\" word.\"\"\"\n", "A \"quoted\" word.", expect![[r#"Text("A \"quoted\" word.")"#]]);
    }
}

//! Positions and URIs: Kenning speaks 1-based lines and byte columns and
//! points at definition nodes; LSP speaks 0-based lines, code units in the
//! negotiated encoding, and identifiers.

use std::path::{Path, PathBuf};

/// The unit of LSP `Position.character`, as negotiated in `initialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    pub(crate) fn from_lsp(name: &str) -> Option<Encoding> {
        match name {
            "utf-8" => Some(Encoding::Utf8),
            "utf-16" => Some(Encoding::Utf16),
            "utf-32" => Some(Encoding::Utf32),
            _ => None,
        }
    }
}

/// The `line0`-th line without its terminator.
pub(crate) fn nth_line(text: &str, line0: usize) -> Option<&str> {
    let line = text.split('\n').nth(line0)?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// Where to ask the server about `name`: its first whole-word occurrence at
/// or after (line, col), within the next 10 lines. Kenning's positions point
/// at the start of a definition node (`def`, decorators, `export`, a return
/// type…), and servers answer nothing for a keyword. Returns (line0, byte).
pub(crate) fn anchor(text: &str, line: u32, col: u32, name: &str) -> (usize, usize) {
    let line0 = line.saturating_sub(1) as usize;
    let col0 = col.saturating_sub(1) as usize;
    let ident = last_segment(name);
    if !ident.is_empty() {
        for (i, l) in text.split('\n').enumerate().skip(line0).take(11) {
            let l = l.strip_suffix('\r').unwrap_or(l);
            let from = if i == line0 { floor_boundary(l, col0) } else { 0 };
            if let Some(byte) = find_word(l, from, ident) {
                return (i, byte);
            }
        }
    }
    (line0, col0)
}

/// `pkg.mod.func`, `Type::method` and `Class#method` name the last segment
/// in the source text.
fn last_segment(name: &str) -> &str {
    let name = name.trim();
    let cut = [name.rfind("::").map(|i| i + 2), name.rfind('.').map(|i| i + 1), name.rfind('#').map(|i| i + 1)]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
    &name[cut..]
}

fn find_word(line: &str, from: usize, word: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    line[from..].match_indices(word).map(|(i, _)| from + i).find(|&start| {
        let end = start + word.len();
        (start == 0 || !is_ident(bytes[start - 1])) && (end >= bytes.len() || !is_ident(bytes[end]))
    })
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

fn floor_boundary(s: &str, byte: usize) -> usize {
    let mut b = byte.min(s.len());
    while !s.is_char_boundary(b) {
        b -= 1;
    }
    b
}

/// Byte offset within `line` → LSP character.
pub(crate) fn byte_to_units(line: &str, byte: usize, enc: Encoding) -> u32 {
    let prefix = &line[..floor_boundary(line, byte)];
    let n = match enc {
        Encoding::Utf8 => prefix.len(),
        Encoding::Utf16 => prefix.encode_utf16().count(),
        Encoding::Utf32 => prefix.chars().count(),
    };
    n as u32
}

/// LSP character → byte offset within `line`; past the end clamps to the
/// end, as the spec asks.
pub(crate) fn units_to_byte(line: &str, units: u32, enc: Encoding) -> usize {
    let units = units as usize;
    match enc {
        Encoding::Utf8 => floor_boundary(line, units),
        Encoding::Utf16 | Encoding::Utf32 => {
            let mut seen = 0;
            for (byte, ch) in line.char_indices() {
                if seen >= units {
                    return byte;
                }
                seen += if enc == Encoding::Utf16 { ch.len_utf16() } else { 1 };
            }
            line.len()
        }
    }
}

/// `file://` URI of an absolute path, percent-encoding everything but
/// unreserved characters and `/`.
pub(crate) fn path_to_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    let s = path.to_string_lossy();
    if !s.starts_with('/') {
        uri.push('/');
    }
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The path of a `file://` URI; `None` for other schemes.
pub(crate) fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: the host (usually `localhost`) is irrelevant locally.
    let rest = &rest[rest.find('/')?..];
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(hi << 4 | lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
    }
    #[cfg(not(unix))]
    {
        Some(PathBuf::from(String::from_utf8_lossy(&out).into_owned()))
    }
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_skips_keywords_and_partial_words() {
        let text = "@decorator\ndef greeting(): pass\ndef greet(name):\n    return greeting()\n";
        assert_eq!(anchor(text, 1, 1, "greet"), (2, 4));
        assert_eq!(anchor(text, 1, 1, "mod.greeting"), (1, 4));
        assert_eq!(anchor(text, 4, 1, "greeting"), (3, 11));
        // Not within reach: keep the given position.
        assert_eq!(anchor(text, 1, 3, "absent"), (0, 2));
    }

    #[test]
    fn encodings_round_trip() {
        let line = "a€😀b";
        assert_eq!(byte_to_units(line, 8, Encoding::Utf16), 4);
        assert_eq!(byte_to_units(line, 8, Encoding::Utf8), 8);
        assert_eq!(byte_to_units(line, 8, Encoding::Utf32), 3);
        assert_eq!(units_to_byte(line, 4, Encoding::Utf16), 8);
        assert_eq!(units_to_byte(line, 3, Encoding::Utf32), 8);
        assert_eq!(units_to_byte(line, 99, Encoding::Utf16), line.len());
        // Inside a character: floor to its start rather than panic.
        assert_eq!(byte_to_units(line, 2, Encoding::Utf16), 1);
        assert_eq!(units_to_byte(line, 2, Encoding::Utf8), 1);
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/ü%.py");
        let uri = path_to_uri(p);
        assert_eq!(uri, "file:///tmp/a%20b/%C3%BC%25.py");
        assert_eq!(uri_to_path(&uri).unwrap(), p);
        assert_eq!(uri_to_path("file://localhost/x/y").unwrap(), Path::new("/x/y"));
        assert_eq!(uri_to_path("file:///x%2").unwrap(), Path::new("/x%2"));
        assert_eq!(uri_to_path("file:///x%€").unwrap(), Path::new("/x%€"));
        assert_eq!(uri_to_path("untitled:1"), None);
    }
}

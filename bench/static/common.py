"""Shared by the static model's miner, trainer and evaluator: the text ken
embeds for a symbol, read back from an index's SQLite file."""

import re
import sqlite3

import zstandard

EMBED_CODE_CHARS = 1600  # crates/ken-search/src/sync.rs
_ZSTD = zstandard.ZstdDecompressor()


def file_texts(db):
    """file id → (path, text) for every file of the index."""
    out = {}
    for fid, path, text in db.execute("SELECT f.id, f.path, t.text FROM files f JOIN file_text t ON t.file_id = f.id"):
        if isinstance(text, bytes):
            try:
                text = _ZSTD.decompress(text, max_output_size=1 << 28).decode("utf-8", "replace")
            except zstandard.ZstdError:
                text = text.decode("utf-8", "replace")
        out[fid] = (path, text)
    return out


def symbols(index_db):
    """Every symbol as a dict: path, kind, name, qualified, local, signature, docstring, code."""
    db = sqlite3.connect(f"file:{index_db}?mode=ro", uri=True)
    texts = file_texts(db)
    rows = db.execute("SELECT file_id, kind, name, qualified_name, local_path, signature, docstring, start_byte, end_byte "
                      "FROM symbols")
    out = []
    for fid, kind, name, qualified, local, signature, doc, start, end in rows:
        path, text = texts.get(fid, ("", ""))
        raw = text.encode("utf-8", "replace")
        code = raw[start:end].decode("utf-8", "replace")
        out.append(dict(path=path, kind=kind, name=name, qualified=qualified, local=local, signature=signature,
                        docstring=doc, code=code))
    db.close()
    return out


def embed_text(sym, docstring=True, code=None):
    """sync.rs's `embed_text` for a symbol."""
    text = f"{sym['kind']} {sym['qualified']}\n{sym['signature']}"
    if docstring and sym["docstring"]:
        text += "\n" + sym["docstring"]
    return text + "\n" + (sym["code"] if code is None else code)[:EMBED_CODE_CHARS]


_MARKERS = re.compile(r'^\s*(///?|//!|/\*\*?|\*/?|#+|"""|\'\'\'|--|;+)\s*')


def _norm(line):
    return re.sub(r"\s+", " ", _MARKERS.sub("", line)).strip().lower()


def strip_docstring(code, docstring):
    """The code without the lines that repeat its docstring (or doc comments)."""
    doc_lines = {_norm(l) for l in docstring.splitlines() if len(_norm(l)) > 3}
    kept = [l for l in code.splitlines() if _norm(l) not in doc_lines]
    # A Python docstring's quotes left on lines of their own.
    return "\n".join(l for l in kept if l.strip() not in ('"""', "'''", 'r"""'))


_SECTION = re.compile(r"^\s*(:param|:return|:raises|:type|:rtype|@param|@return|@throws|@example|args:|arguments:|returns:|"
                      r"raises:|parameters|examples?:|yields:|note:|see also|# (examples|panics|errors|safety))", re.I)


def query_of(docstring):
    """A search query from a docstring: its first paragraph, before any parameter section, at most 40 words."""
    lines = []
    for line in docstring.strip().splitlines():
        if not line.strip() or _SECTION.match(line):
            if lines:
                break
            continue
        lines.append(line.strip())
    words = " ".join(lines).split()
    return " ".join(words[:40])

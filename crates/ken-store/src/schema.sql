-- Version 1: files, their text, symbols, raw references and chunks.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE files (
    id           INTEGER PRIMARY KEY,
    path         TEXT NOT NULL UNIQUE,
    language     TEXT NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    hash         TEXT NOT NULL,
    module       TEXT NOT NULL,
    package      TEXT,
    lines        INTEGER NOT NULL,
    parse_errors INTEGER NOT NULL
);
CREATE INDEX files_hash ON files(hash);

CREATE TABLE file_text (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    text    TEXT NOT NULL
);

CREATE TABLE symbols (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal        INTEGER NOT NULL,
    parent_id      INTEGER,
    kind           TEXT NOT NULL,
    name           TEXT NOT NULL,
    local_path     TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    signature      TEXT NOT NULL,
    docstring      TEXT,
    start_byte     INTEGER NOT NULL,
    end_byte       INTEGER NOT NULL,
    start_line     INTEGER NOT NULL,
    start_col      INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    end_col        INTEGER NOT NULL,
    name_line      INTEGER NOT NULL,
    name_col       INTEGER NOT NULL
);
CREATE INDEX symbols_file ON symbols(file_id, ordinal);
CREATE INDEX symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX symbols_qualified ON symbols(qualified_name);

CREATE TABLE refs (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    enclosing_id INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    name         TEXT NOT NULL,
    qualifier    TEXT,
    alias        TEXT,
    line         INTEGER NOT NULL,
    col          INTEGER NOT NULL
);
CREATE INDEX refs_file ON refs(file_id);
CREATE INDEX refs_name ON refs(name);

CREATE TABLE chunks (
    id              INTEGER PRIMARY KEY,
    file_id         INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    symbol_id       INTEGER,
    start_line      INTEGER NOT NULL,
    end_line        INTEGER NOT NULL,
    start_byte      INTEGER NOT NULL,
    end_byte        INTEGER NOT NULL,
    class_id        INTEGER,
    class_encloses  INTEGER,
    method_id       INTEGER,
    method_encloses INTEGER,
    text            TEXT NOT NULL
);
CREATE INDEX chunks_file ON chunks(file_id);

-- Version 2: type facts, the dependency graph and symbol analytics.
ALTER TABLE symbols ADD COLUMN return_type TEXT;

-- 0 until the file's references are resolved into edges; a write to a file
-- this one's resolution consulted sets it back to 0 (see file_deps).
ALTER TABLE files ADD COLUMN linked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_unlinked ON files(linked) WHERE linked = 0;
-- Digest of what other files can see of this one (see write.rs).
ALTER TABLE files ADD COLUMN interface TEXT;

CREATE TABLE bindings (
    file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    scope_id  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    type_text TEXT NOT NULL,
    source    TEXT NOT NULL,
    line      INTEGER NOT NULL
);
CREATE INDEX bindings_file ON bindings(file_id);

-- Labelled edges in their forward direction (calls, derived_class_of…);
-- the inverse (CalledBy, BaseClassOf…) is the same row read from dst_id.
-- An unresolved reference has no dst_id and keeps its name.
CREATE TABLE edges (
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,
    src_id     INTEGER NOT NULL,
    dst_id     INTEGER,
    relation   TEXT NOT NULL,
    resolution TEXT NOT NULL,
    name       TEXT NOT NULL,
    qualifier  TEXT,
    line       INTEGER NOT NULL,
    col        INTEGER NOT NULL,
    PRIMARY KEY (file_id, ordinal)
) WITHOUT ROWID;
-- Traversals only follow resolved edges; unresolved ones are found by name.
CREATE INDEX edges_src ON edges(src_id, relation) WHERE dst_id IS NOT NULL;
CREATE INDEX edges_dst ON edges(dst_id, relation) WHERE dst_id IS NOT NULL;
CREATE INDEX edges_loose ON edges(name) WHERE dst_id IS NULL OR resolution = 'unique_name';

-- Files whose symbols a file's resolution consulted: rewriting one of them
-- makes the dependent file resolve again.
CREATE TABLE file_deps (
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    dep_file_id INTEGER NOT NULL,
    PRIMARY KEY (file_id, dep_file_id)
) WITHOUT ROWID;
CREATE INDEX file_deps_dep ON file_deps(dep_file_id);

-- MutaGReP's symbol analytics, recomputed over the whole graph after a run.
CREATE TABLE symbol_metrics (
    symbol_id   INTEGER PRIMARY KEY REFERENCES symbols(id) ON DELETE CASCADE,
    in_degree   INTEGER NOT NULL,
    out_degree  INTEGER NOT NULL,
    callers     INTEGER NOT NULL,
    refs        INTEGER NOT NULL,
    files_using INTEGER NOT NULL,
    pagerank    REAL NOT NULL,
    importance  REAL NOT NULL,
    entry_point INTEGER NOT NULL,
    is_test     INTEGER NOT NULL
);
CREATE INDEX symbol_metrics_importance ON symbol_metrics(importance DESC);

-- Version 8: the graph's big tables store their enums as small integer codes
-- (ken-store's codes.rs), and a reference is keyed by its file and its
-- position in the file's list, so the table is its own index by file. On
-- sympy this took a quarter off the references and the edges.

CREATE TABLE refs_v8 (
    file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    enclosing_id INTEGER NOT NULL,
    kind         INTEGER NOT NULL,
    name         TEXT NOT NULL,
    qualifier    TEXT,
    alias        TEXT,
    line         INTEGER NOT NULL,
    col          INTEGER NOT NULL,
    -- Set on an unresolved call, instantiation or base class: the symbol it was made from.
    loose_src    INTEGER,
    PRIMARY KEY (file_id, ordinal)
) WITHOUT ROWID;
INSERT INTO refs_v8
SELECT file_id, row_number() OVER (PARTITION BY file_id ORDER BY id) - 1, enclosing_id,
    CASE kind WHEN 'call' THEN 1 WHEN 'import' THEN 2 WHEN 'inherit' THEN 3 WHEN 'instantiate' THEN 4
        WHEN 'field_use' THEN 5 END,
    name, qualifier, alias, line, col, loose_src
FROM refs;
DROP TABLE refs;
ALTER TABLE refs_v8 RENAME TO refs;
CREATE INDEX refs_name ON refs(name);

CREATE TABLE edges_v8 (
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,
    src_id     INTEGER NOT NULL,
    dst_id     INTEGER,
    relation   INTEGER NOT NULL,
    resolution INTEGER NOT NULL,
    name       TEXT NOT NULL,
    qualifier  TEXT,
    line       INTEGER NOT NULL,
    col        INTEGER NOT NULL,
    PRIMARY KEY (file_id, ordinal)
) WITHOUT ROWID;
INSERT INTO edges_v8
SELECT file_id, ordinal, src_id, dst_id,
    CASE relation WHEN 'parent_of' THEN 1 WHEN 'construct' THEN 2 WHEN 'imports' THEN 3
        WHEN 'derived_class_of' THEN 4 WHEN 'overrides' THEN 5 WHEN 'calls' THEN 6
        WHEN 'instantiates' THEN 7 WHEN 'uses' THEN 8 END,
    CASE resolution WHEN 'exact' THEN 1 WHEN 'type_inferred' THEN 2 WHEN 'unique_name' THEN 3
        WHEN 'unresolved' THEN 4 END,
    name, qualifier, line, col
FROM edges;
DROP TABLE edges;
ALTER TABLE edges_v8 RENAME TO edges;
CREATE INDEX edges_src ON edges(src_id, relation) WHERE dst_id IS NOT NULL;
CREATE INDEX edges_dst ON edges(dst_id, relation) WHERE dst_id IS NOT NULL;
-- 3 is `unique_name`: edges found by a name only, which a new definition of the name can change.
CREATE INDEX edges_loose ON edges(name) WHERE dst_id IS NULL OR resolution = 3;

-- Analytics are read whole and sorted by more than importance: its index
-- served no query.
DROP INDEX IF EXISTS symbol_metrics_importance;

-- Version 9: the same facts in less space (issue 22: an index without
-- embeddings at most 3× its source). Measured on sympy 1.13.3 (31.4 MB):
-- references' name index 9.5 MB, qualified names' 2.8 MB, BM25's body
-- column markers about 6 MB, resolved edges repeating their reference.

-- References are looked up by name only where they are field uses or carry
-- an unresolved edge (impact's field uses, and the files a new definition
-- makes resolve again): calls and imports resolve from their own file.
DROP INDEX refs_name;
CREATE INDEX refs_field_uses ON refs(name) WHERE kind = 5;
CREATE INDEX refs_loose ON refs(name) WHERE loose_src IS NOT NULL;

-- A qualified name is looked up whole; its last 16 characters find it
-- among the few that share them, at a third of the bytes.
DROP INDEX symbols_qualified;
CREATE INDEX symbols_qualified_tail ON symbols(substr(qualified_name, -16));

-- The pending points in embedding order (symbols, then chunks, by id):
-- the index holds the rowid after the unit anyway.
DROP INDEX points_pending;
CREATE INDEX points_pending ON points(unit) WHERE dense = 0;

-- FTS5 writes a column marker (two bytes) before the positions of every
-- column but the first, for every term of every document: the code goes
-- in the first column, the names, fewer, in the second.
DROP TABLE lexical;
CREATE VIRTUAL TABLE lexical USING fts5(
    body, names,
    content = '', contentless_delete = 1,
    tokenize = 'ascii'
);
-- BM25's tokens changed too (ken-search's `push_token`): every unit is synced again.
UPDATE files SET vsynced = 0;

-- A resolved edge made from a reference names it by its ordinal
-- (`ref_ordinal`) instead of repeating its name, qualifier and position;
-- `edge_rows` reads every edge whole. Unresolved and name-only edges keep
-- their name: `edges_loose` finds them by it.
CREATE TABLE edges_v9 (
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    src_id      INTEGER NOT NULL,
    dst_id      INTEGER,
    relation    INTEGER NOT NULL,
    resolution  INTEGER NOT NULL,
    name        TEXT,
    qualifier   TEXT,
    line        INTEGER,
    col         INTEGER,
    ref_ordinal INTEGER,
    PRIMARY KEY (file_id, ordinal)
) WITHOUT ROWID;
INSERT INTO edges_v9(file_id, ordinal, src_id, dst_id, relation, resolution, name, qualifier, line, col)
SELECT file_id, ordinal, src_id, dst_id, relation, resolution, name, qualifier, line, col FROM edges;
DROP TABLE edges;
ALTER TABLE edges_v9 RENAME TO edges;
-- Reads by source or destination take every relation and filter after;
-- only the implied parent edges ask for one (`parent_of`, 1), which few
-- rows are. On sympy the relation in both indexes was 1.2 MB.
CREATE INDEX edges_src ON edges(src_id) WHERE dst_id IS NOT NULL;
CREATE INDEX edges_dst ON edges(dst_id) WHERE dst_id IS NOT NULL;
CREATE INDEX edges_parent ON edges(dst_id) WHERE relation = 1;
CREATE INDEX edges_loose ON edges(name) WHERE dst_id IS NULL OR resolution = 3;

CREATE VIEW edge_rows AS
SELECT e.file_id, e.ordinal, e.src_id, e.dst_id, e.relation, e.resolution,
    coalesce(e.name, r.name) AS name,
    CASE WHEN e.ref_ordinal IS NULL THEN e.qualifier ELSE r.qualifier END AS qualifier,
    coalesce(e.line, r.line) AS line,
    coalesce(e.col, r.col) AS col
FROM edges e LEFT JOIN refs r ON e.ref_ordinal IS NOT NULL AND r.file_id = e.file_id AND r.ordinal = e.ref_ordinal;

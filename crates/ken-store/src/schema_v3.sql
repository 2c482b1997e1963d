-- Version 3: what the vector shard (Qdrant Edge) holds, and the embedding cache.

-- 0 until the file's points in the vector shard match its symbols and chunks.
ALTER TABLE files ADD COLUMN vsynced INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_unsynced ON files(vsynced) WHERE vsynced = 0;

-- One row per point in the shard: a symbol (unit 0) or a chunk (unit 1).
-- `dense` is 1 once the point carries its dense vector. A row whose file is
-- gone marks a stale point to delete.
CREATE TABLE points (
    id        INTEGER PRIMARY KEY,
    file_id   INTEGER NOT NULL,
    unit      INTEGER NOT NULL,
    text_hash BLOB NOT NULL,
    dense     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX points_file ON points(file_id);
CREATE INDEX points_pending ON points(unit, id) WHERE dense = 0;

-- Embeddings by (model, hash of the embedded text): unchanged text is never
-- embedded twice, whatever happens to the file around it.
CREATE TABLE embeddings (
    model  TEXT NOT NULL,
    hash   BLOB NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;

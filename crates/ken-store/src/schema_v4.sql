-- Version 4: BM25 lives in SQLite (FTS5), written in the same transactions
-- as `points`. Qdrant Edge's in-memory sparse index costs O(postings) per
-- insert per term, which made the lexical phase quadratic; the shard now
-- holds only points that carry a dense vector.

-- One row per unit (rowid = point id). Columns hold the unit's terms from
-- ken-search's code-aware tokenizer, each as a hashed token: `names` (a
-- symbol's name and qualified name, weighted higher) and `body`.
CREATE VIRTUAL TABLE lexical USING fts5(
    names, body,
    content = '', contentless_delete = 1,
    tokenize = 'ascii'
);

-- Units synced before this version have no BM25 row: sync them again.
UPDATE files SET vsynced = 0;

-- Version 6: MutaGReP's intents, first-person sentences a language model
-- wrote for a function, method or class (`ken index --intents`).

-- What the model wrote, by (model, hash of the prompt version and the
-- symbol's text): an unchanged symbol is never asked about twice, whatever
-- happens to the file around it.
CREATE TABLE intent_cache (
    model   TEXT NOT NULL,
    hash    BLOB NOT NULL,
    intents TEXT NOT NULL, -- a JSON array of strings
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;

-- The intents of the index's symbols: one row per sentence, a point of the
-- `intents` shard (point id = id). `hash` is the intent_cache key they came
-- from: a symbol whose text changed gets new ones. They go with their symbol.
CREATE TABLE intents (
    id        INTEGER PRIMARY KEY,
    symbol_id INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
    hash      BLOB NOT NULL,
    text      TEXT NOT NULL
);
CREATE INDEX intents_symbol ON intents(symbol_id);

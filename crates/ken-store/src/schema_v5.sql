-- Version 5: the index holds the source once. A chunk is a span of its
-- file's text (`ken_slice`), and new file text is stored compressed (zstd);
-- rows written before stay plain text until their file is mined again.
ALTER TABLE chunks DROP COLUMN text;

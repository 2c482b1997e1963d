-- Version 10: smaller rows for repositories of many small files (pylint
-- 4.0.4: 3,870 files, 17.5 MB of index for 5.7 MB of source).
--
-- No query looks a file up by its content hash (snapshots reuse mining
-- through the files read whole, embeddings through their own cache), so
-- `files_hash` was a copy of every hash kept for nothing (160 KB there).
DROP INDEX IF EXISTS files_hash;
-- The content hash as its 16 bytes, not 32 hex digits (read back as hex;
-- anything that is not hex stays text), and the interface hash as 8 bytes
-- (`put_file` writes a blob; a text one left here reads as changed once).
UPDATE files SET hash = unhex(hash) WHERE typeof(hash) = 'text' AND unhex(hash) IS NOT NULL AND length(hash) > 0;

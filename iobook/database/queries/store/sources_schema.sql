-- The tables ingest keeps of the files themselves (the record tables come from the parsers' record classes):
-- each file's row, what the last ingest left to do, and the stat of the bytes each row was made from.
CREATE TABLE IF NOT EXISTS sources (
    source_id   BIGINT PRIMARY KEY,
    path        VARCHAR NOT NULL,         -- absolute, as resolved at ingest; printable: a byte of a name that
                                          -- is not UTF-8 shown as \xNN (not unique then: path_bytes is)
    path_bytes  BLOB,                     -- the path's bytes, when its name is not UTF-8 (null otherwise)
    sha256      VARCHAR NOT NULL,
    bytes       BIGINT NOT NULL,
    format      VARCHAR,                  -- detected from content; null when skipped
    tool        VARCHAR,
    tool_version VARCHAR,
    status      VARCHAR NOT NULL CHECK (status IN ('ok', 'error', 'skipped', 'gone')),  -- gone: no longer
                                          -- in the folders ingested; its records are removed
    error       VARCHAR,                  -- why it failed or was skipped
    error_line  INTEGER                   -- 1-based line of the failure, when known
);
-- Set in the transaction that writes a batch of files, cleared in the one that rebuilds the derived
-- tables: a run killed in between leaves it set, and the next ingest rebuilds them.
CREATE TABLE IF NOT EXISTS ingest_state (key VARCHAR PRIMARY KEY, value VARCHAR);
-- The stat of the bytes a source's row and records were made from, when it can be trusted (ingest's
-- RACY_NS): a file whose stat still equals it is unchanged without being read (git's index does this).
CREATE TABLE IF NOT EXISTS file_stats (source_id BIGINT PRIMARY KEY, bytes BIGINT NOT NULL,
    mtime_ns BIGINT NOT NULL, ctime_ns BIGINT NOT NULL, inode BIGINT NOT NULL);

-- Every file the store holds a row of: its id, path (and the path's bytes when its name is not UTF-8), hash,
-- status and error.
SELECT source_id, path, path_bytes, sha256, status, error FROM sources

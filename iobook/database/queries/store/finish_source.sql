-- A streamed file's sources row set to what reading it found (?: sha256, bytes, status, error, error_line, then its
-- source id).
UPDATE sources SET sha256 = ?, bytes = ?, status = ?, error = ?, error_line = ? WHERE source_id = ?

-- (source_id, path) of the files given (parameter: source ids).
SELECT source_id, path FROM sources WHERE list_contains(?, source_id)

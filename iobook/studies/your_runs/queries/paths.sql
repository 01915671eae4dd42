-- The path of each file of a list of source ids.
SELECT source_id, path FROM sources WHERE list_contains(?, source_id)

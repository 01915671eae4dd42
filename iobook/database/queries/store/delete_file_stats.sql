-- The recorded stats of the given files (?: their source ids) removed.
DELETE FROM file_stats WHERE list_contains(?, source_id)

-- The given files (?: their source ids), no longer in the folders ingested, marked gone.
UPDATE sources SET status = 'gone', error = NULL, error_line = NULL WHERE list_contains(?, source_id)

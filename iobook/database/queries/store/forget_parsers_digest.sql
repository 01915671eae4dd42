-- The parsers' digest forgotten: the next ingest parses every file again.
DELETE FROM ingest_state WHERE key = 'parsers_digest'

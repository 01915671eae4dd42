-- The value ingest_state holds under a key (?).
SELECT value FROM ingest_state WHERE key = ?

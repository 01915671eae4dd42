-- A key of ingest_state set to a value (?, ?).
INSERT OR REPLACE INTO ingest_state VALUES (?, ?)

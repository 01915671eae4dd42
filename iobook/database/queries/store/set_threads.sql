-- DuckDB's threads (parameter: their count).
SET threads = ?

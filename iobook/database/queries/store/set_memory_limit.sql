-- DuckDB's memory limit for this connection's database (parameter: as DuckDB reads one, '64MB').
SET memory_limit = ?

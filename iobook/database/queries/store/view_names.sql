-- Every view of the database (not DuckDB's own).
SELECT view_name FROM duckdb_views() WHERE NOT internal

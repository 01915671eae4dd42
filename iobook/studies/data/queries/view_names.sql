-- The public views' names, sorted.
SELECT view_name AS view FROM duckdb_views() WHERE NOT internal ORDER BY view_name

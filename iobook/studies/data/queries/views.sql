-- The public views (every view that is not DuckDB's own) and the sources table, with their columns in order.
SELECT table_name AS view, string_agg(column_name, ', ' ORDER BY ordinal_position) AS columns
FROM information_schema.columns
WHERE table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal) OR table_name = 'sources'
GROUP BY table_name

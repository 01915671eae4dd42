-- The file of the database this connection reads (NULL for one in memory).
SELECT path FROM duckdb_databases() WHERE database_name = current_database()

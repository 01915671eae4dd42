-- Whether the database has the view named ? (one ingested before it existed lacks it until it is rebuilt).
SELECT count(*) > 0 AS present FROM duckdb_views() WHERE view_name = ?

-- Every text column of the database's own tables (not DuckDB's, not temporary): where an address, a login name or
-- a DAOS label may stand.
SELECT c.table_name, c.column_name FROM duckdb_columns() c JOIN duckdb_tables() t
USING (database_name, schema_name, table_name) WHERE c.data_type = 'VARCHAR'
AND NOT c.internal AND NOT t.internal AND NOT t.temporary

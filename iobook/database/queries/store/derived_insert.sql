-- A derived table's new rows, registered as _io500_rows, written by column name ({table}: a name from
-- io500_runs.TABLES or setups.TABLES).
INSERT INTO {table} BY NAME SELECT * FROM _io500_rows

-- A derived table's rows cleared before its rebuild ({table}: a name from io500_runs.TABLES or setups.TABLES).
DELETE FROM {table}

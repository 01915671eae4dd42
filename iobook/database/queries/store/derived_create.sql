-- A derived table (io500_runs.TABLES, setups.TABLES): {table} its name, {columns} its "name TYPE" list, both from
-- the code's table definitions, never from a file.
CREATE TABLE IF NOT EXISTS {table} ({columns})

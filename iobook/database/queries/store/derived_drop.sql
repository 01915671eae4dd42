-- A derived table (io500_runs.TABLES, setups.TABLES) whose columns changed, dropped to be made again: {table} is
-- one of those tables' names, never a value from a file.
DROP TABLE {table}

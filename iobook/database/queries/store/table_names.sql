-- Every table of the database.
SELECT table_name FROM information_schema.tables

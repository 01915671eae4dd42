-- A view or table (parameter: its name) as the Parquet export writes it, holding only this build's files: a row
-- whose source_id columns (every column whose name ends in source_id) each name no file or a file of this build
-- (not one gone from the folders ingested). A row of the sources table names itself: its own file.
SELECT * FROM query_table(?)
WHERE COLUMNS('source_id$') IS NULL
   OR COLUMNS('source_id$') IN (SELECT source_id FROM sources WHERE status <> 'gone')

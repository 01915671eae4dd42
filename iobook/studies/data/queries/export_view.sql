-- A view or table (parameter: its name) as the Parquet export writes it, when no column of it names a file.
SELECT * FROM query_table(?)

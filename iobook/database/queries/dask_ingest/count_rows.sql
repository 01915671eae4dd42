-- How many rows one table holds (a Dask task writes a part only for a table with rows).
SELECT count(*) FROM {table}

-- One raw table of a Dask task's in-memory database as a Parquet part (parameter: the part's path).
COPY {table} TO ? (FORMAT parquet)

-- One raw table's Parquet parts appended to it (parameter: the parts' paths).
INSERT INTO {table} BY NAME SELECT * FROM read_parquet(?)

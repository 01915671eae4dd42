-- A batch of one record class's rows (the Arrow table registered as _incoming) appended to its table.
INSERT INTO {table} BY NAME SELECT * FROM _incoming

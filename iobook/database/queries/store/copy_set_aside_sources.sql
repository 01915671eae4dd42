-- The migration to path_bytes, 2 of 3: the old rows copied by the columns the catalogue listed.
INSERT INTO sources BY NAME SELECT {columns} FROM sources_before_path_bytes

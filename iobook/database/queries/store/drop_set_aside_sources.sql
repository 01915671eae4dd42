-- The migration to path_bytes, 3 of 3: the old sources table gone.
DROP TABLE sources_before_path_bytes

-- The migration to path_bytes (store._add_path_bytes), 1 of 3: the old sources table set aside.
ALTER TABLE sources RENAME TO sources_before_path_bytes

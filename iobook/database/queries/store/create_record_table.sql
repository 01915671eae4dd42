-- One record class's table: the file it came from, then its fields (store.record_columns).
CREATE TABLE IF NOT EXISTS {table} (source_id BIGINT NOT NULL, {columns})

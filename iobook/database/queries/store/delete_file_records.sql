-- One table's rows of one file (parameter: its source id).
DELETE FROM {table} WHERE source_id = ?

-- One table's rows of the files given (parameter: source ids).
DELETE FROM {table} WHERE list_contains(?, source_id)

-- A record table whose class changed (a database of an older iobook), dropped to be made again.
DROP TABLE {table}

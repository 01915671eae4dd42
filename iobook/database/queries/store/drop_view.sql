-- A view an older iobook made that views/*.sql no longer do.
DROP VIEW IF EXISTS {view}

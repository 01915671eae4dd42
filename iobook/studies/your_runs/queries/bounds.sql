-- The least limit each log's setup states (view log_bounds: a setup.yml's links and their rate, drives and theirs,
-- times the client nodes the log says ran it), for a list of source ids (?).
SELECT source_id, binding, bound_gib_s, stated
FROM log_bounds
WHERE list_contains(?, source_id)
ORDER BY source_id

-- What a setup.yml beside them states of the given logs (?: their source ids), field by field (table log_setup):
-- a history's change point names those that differ either side of it.
SELECT source_id, field, value
FROM log_setup
WHERE list_contains(?, source_id)
ORDER BY source_id, field

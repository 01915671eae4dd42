-- The mmlsconfig settings of the runs (first ?: run ids) through their system files; the keys (second and third
-- ?: the same list, lower case) matched case-insensitively, as mmchconfig does; an empty list: every key.
SELECT DISTINCT x.run_id, c.source_id, c.scope, c.key, c.value, c.line
FROM io500_run_system_files x JOIN gpfs_config c USING (source_id)
WHERE list_contains(?, x.run_id) AND (len(?) = 0 OR list_contains(?, lower(c.key)))
ORDER BY x.run_id, c.source_id, c.line

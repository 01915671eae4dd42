-- Each IO500 run's io500_info lines of the given keys (?: institute_name, system_name, ...), in the order its files
-- print them.
SELECT m.run_id, i.key, i.value
FROM raw_io500_info i JOIN io500_run_members m USING (source_id)
WHERE list_contains(?, i.key)
ORDER BY m.run_id, i.source_id, i.line

-- What each run's io500_info lines state of its storage's protection overhead (ds_overhead: data, md_overhead:
-- metadata; "RAID5", "20"), one row per run and key: the only protection a Lustre run's files can state.
SELECT run_id, key, value FROM io500_system_info WHERE key IN ('ds_overhead', 'md_overhead') ORDER BY run_id, key

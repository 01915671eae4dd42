-- One row per IOR phase of the runs (?: run ids) that has its own IOR log: IOR's bandwidth and the IO500 summary's,
-- whether they agree, and the shape of the log's first IOR test (its command line names the file it wrote).
SELECT l.run_id, l.phase, l.source_id, p.source_id AS summary_source_id,
       l.log_value AS ior_gib_s, l.summary_value AS io500_gib_s, l.agrees, l.rule,
       t.transfer_bytes, t.file_per_proc, t.tasks, t.nodes, t.command
FROM io500_phase_logs l
JOIN io500_phases p USING (run_id, phase)
LEFT JOIN ior_tests t ON t.source_id = l.source_id
WHERE l.phase LIKE 'ior-%' AND list_contains(?, l.run_id)
QUALIFY row_number() OVER (PARTITION BY l.run_id, l.phase ORDER BY t.test_index) = 1
ORDER BY l.run_id, p.position

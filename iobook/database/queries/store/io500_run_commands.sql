-- Each IO500 run's command lines: those of its IOR and mdtest phase logs, its result.txt's (exe) and its bash log's
-- ([Exec]), and the data and result folders its summary states.
SELECT k.run_id, coalesce(t.command, '') || CASE WHEN t.api = 'DFS' THEN ' -a DFS' ELSE '' END
FROM io500_phase_log_links k JOIN raw_ior_tests t USING (source_id)
UNION ALL
SELECT k.run_id, m.command FROM io500_phase_log_links k JOIN raw_mdtest_summaries m USING (source_id)
UNION ALL  -- the C app's result.txt prints each phase's command line (exe)
SELECT m.run_id, p.command FROM raw_io500_phases p JOIN io500_run_members m USING (source_id)
WHERE p.command IS NOT NULL
UNION ALL  -- the folders the run's summary states: where its data and results went
SELECT m.run_id, i.value FROM raw_io500_info i JOIN io500_run_members m USING (source_id)
WHERE i.key IN ('io500_workdir', 'exec')
UNION ALL
SELECT run_id, result_dir FROM io500_run_info WHERE result_dir IS NOT NULL

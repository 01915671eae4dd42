-- One row per rate (ops/s: the mean of the iterations its SUMMARY prints) of each mdtest run with a start time,
-- outside IO500 runs and no copy of a log stored already; phases not done (0) or failed are no rate. Its workload key
-- is the operation and the command line.
SELECT r.mdtest_id, r.source_id, r.started_at, r.version, r.command, r.tasks, r.nodes, r.items, r.path,
       x.operation, x.mean AS ops_s
FROM mdtest_runs r JOIN mdtest_results x USING (mdtest_id)
WHERE x.table_kind = 'rate' AND x.mean > 0 AND NOT x.failed AND NOT x.stonewall AND r.started_at IS NOT NULL
  AND r.source_id NOT IN (SELECT source_id FROM duplicate_logs)
  AND r.source_id NOT IN (SELECT source_id FROM io500_phase_log_links)
ORDER BY r.source_id, r.summary_index, x.line;

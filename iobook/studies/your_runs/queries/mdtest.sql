-- One row per rate (ops/s) an mdtest SUMMARY printed, no copy of a log stored already: the mean of the iterations
-- of that invocation. Phases the run did not do (printed as 0) and phases that failed are left out.
SELECT r.source_id, r.summary_index, r.command, r.items, r.item_kind, r.tasks, r.nodes,
       r.iterations, x.operation AS workload, x.mean AS ops_s
FROM mdtest_runs r JOIN mdtest_results x USING (mdtest_id)
WHERE x.table_kind = 'rate' AND x.mean > 0 AND NOT x.failed
  AND r.source_id NOT IN (SELECT source_id FROM duplicate_logs)
ORDER BY r.source_id, r.summary_index, x.line

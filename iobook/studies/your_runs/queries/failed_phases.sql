-- The phases whose log says they failed: an mdtest phase that printed that its operations failed (its first such
-- line, the message, how many such lines), a fio job whose output states an error (its errno), no copy of a fio
-- log stored already, and a DLIO run whose log has no summary.json beside it (view dlio_logs, status 'unfinished':
-- the log's last line and how far it got); in the order of the files, then of the phases in each.
SELECT 'mdtest' AS tool, r.path AS file, x.operation AS phase, x.failure_line AS line, x.failure,
       x.failure_lines, NULL::BIGINT AS errno, r.summary_index AS position, x.line AS within
FROM mdtest_runs r JOIN mdtest_results x USING (mdtest_id)
WHERE x.table_kind = 'rate' AND x.failed
UNION ALL
SELECT 'fio', s.path, j.jobname || ' (' || coalesce(j.rw, 'rw not stated') || ')', NULL, NULL, NULL, j.error,
       j.job_index, 0
FROM fio_jobs j JOIN sources s USING (source_id)
WHERE j.error <> 0 AND j.source_id NOT IN (SELECT source_id FROM duplicate_logs)
UNION ALL
SELECT 'dlio', path, kind, lines, reason, NULL, NULL, 0, 0
FROM dlio_logs
WHERE status = 'unfinished'
ORDER BY file, tool, position, within

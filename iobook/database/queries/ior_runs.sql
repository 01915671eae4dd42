-- One row per iteration of each IOR test's write or read that has a start time ("Began"), outside IO500 runs (their
-- phase logs are the IO500 history's) and no copy of a log stored already. Its workload key is the access, the
-- command line (a nightly job runs the same one) and rank 0's node (host: a history never mixes machines).
SELECT t.test_id, t.source_id, t.began, t.host, t.version, t.command, t.api, t.tasks, t.nodes, t.transfer_bytes,
       t.block_bytes, t.segments, t.file_per_proc, s.path, i.access, i.iteration, i.bw_mib_s
FROM ior_tests t JOIN ior_iterations i USING (test_id) JOIN sources s USING (source_id)
WHERE i.access IN ('write', 'read') AND i.bw_mib_s > 0 AND t.began IS NOT NULL
  AND t.source_id NOT IN (SELECT source_id FROM duplicate_logs)
  AND t.source_id NOT IN (SELECT source_id FROM io500_phase_log_links)
ORDER BY t.source_id, t.test_index, i.access, i.iteration;

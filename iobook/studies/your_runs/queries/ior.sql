-- One row per IOR iteration of a write or read, no copy of a log stored already: the test's parameters,
-- bandwidth (MiB/s), IOPS and IOR's Latency(s) column (ms; none where the column holds the phase's time).
SELECT t.source_id, t.test_index, t.api, t.transfer_bytes AS transfer, t.block_bytes AS block, t.segments,
       t.tasks, t.nodes, t.file_per_proc, t.collective, t.ordering_in_file, t.ordering_inter_file,
       t.stonewall_s, t.command,
       i.access AS workload, i.bw_mib_s, i.iops AS ops_s, CASE WHEN NOT i.latency_is_phase_time THEN i.latency_s * 1000 END AS lat_ms
FROM ior_tests t JOIN ior_iterations i USING (test_id)
WHERE i.access IN ('write', 'read') AND i.bw_mib_s > 0
  AND t.source_id NOT IN (SELECT source_id FROM duplicate_logs)
ORDER BY t.source_id, t.test_index, i.access, i.iteration

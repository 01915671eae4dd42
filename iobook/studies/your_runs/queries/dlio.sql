-- One row per DLIO run of your own (view dlio_runs: outside MLPerf Storage submissions, no copy of a summary.json
-- stored already): the workload and the settings its summary.json and config state, DLIO's mean MB/s over the epochs
-- (its MB is 2^20 bytes: MiB/s), the same per simulated accelerator, samples/s and AU (%).
SELECT source_id, workload, accelerators, hosts, files AS files_train, record_length_bytes AS record_length, batch_size,
       read_threads, computation_time_s AS computation_time, epochs, mb_per_s AS bw_mib_s,
       mb_per_s_per_accelerator AS accel_mib_s, samples_per_s AS ops_s, au_mean_pct AS au_pct
FROM dlio_runs
ORDER BY source_id

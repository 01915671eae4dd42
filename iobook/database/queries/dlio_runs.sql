-- One row per DLIO run of your own (view dlio_runs) with a start time: its settings (mlperf_runs.settings: the
-- workload, simulated accelerators, hosts, data set and DLIO's I/O parameters) make two runs one workload.
SELECT source_id, path, started, workload, accelerator, accelerators, hosts, epochs, files, samples_per_file,
       record_length_bytes, batch_size, read_threads, computation_time_s, mb_per_s, samples_per_s, au_mean_pct, settings
FROM dlio_runs
WHERE started IS NOT NULL
ORDER BY started, source_id;

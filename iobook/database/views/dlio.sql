-- DLIO runs of your own (scripts/collect_dlio.py, or DLIO run by hand): every run mlperf_runs reads (one summary.json,
-- with the config and overrides beside it in configs/ or DLIO's own .hydra/) that is no MLPerf Storage submission's.
-- A submission's run is the MLPerf chapter's, as an IO500 run's phase logs are the IO500 chapters': a run of a result
-- whose folder holds the five-run report (<result>/mlperf_storage_report.json: every v1.0 result has one), or of an
-- organisation whose folder holds a system description (<organisation>/systems/<system>.json, as mlperf_systems
-- reads them). A
-- summary.json stored more than once (the same bytes: a folder copied) is one run: the last copy ingested is kept,
-- as duplicate_logs keeps fio, IOR and mdtest logs (which leaves DLIO's files out: each host's folder holds the
-- same configs, which are no copies of a run). Your runs and History read these as they read fio, IOR and mdtest runs, and `iobook
-- check` gates them. Units as DLIO writes them: MB/s in 2^20 bytes; started is the host's local time (no zone).
-- mb_per_s_per_accelerator: mb_per_s over the simulated accelerators of the run (all hosts).
CREATE OR REPLACE VIEW dlio_runs AS
SELECT r.source_id, r.path, r.started, r.ended, r.workload, r.accelerator, r.accelerators, r.hosts, r.hostname,
       r.epochs, r.num_files_train AS files, r.num_samples_per_file AS samples_per_file, r.record_length_bytes,
       r.batch_size, r.read_threads, r.computation_time_s, r.au_mean_pct, r.au_min_config_pct, r.samples_per_s,
       r.mb_per_s, r.mb_per_s / r.accelerators AS mb_per_s_per_accelerator, r.data_size_per_host_gb,
       r.hosts_memory_gb, r.hosts_potential_caching, r.settings
FROM mlperf_runs r
WHERE r.source_id NOT IN (SELECT s.source_id FROM sources s JOIN raw_dlio_summaries USING (source_id)
                          WHERE EXISTS (SELECT 1 FROM sources t JOIN raw_dlio_summaries USING (source_id)
                                        WHERE t.sha256 = s.sha256 AND t.source_id > s.source_id AND t.status = 'ok'))
  AND r.organisation NOT IN (SELECT organisation FROM mlperf_systems)
  AND NOT EXISTS (SELECT 1 FROM raw_mlperf_reports JOIN sources p USING (source_id)
                  WHERE p.path = r.result_path || '/mlperf_storage_report.json');

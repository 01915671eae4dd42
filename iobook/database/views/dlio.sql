-- DLIO runs of your own (scripts/collect_dlio.py, or DLIO run by hand): every DLIO run (view dlio_summary_runs: one
-- summary.json, with the config and overrides beside it in configs/ or DLIO's own .hydra/) outside an MLPerf Storage
-- result tree (<organisation>/results/<system>/...: those are mlperf_runs, the MLPerf chapter's, as an IO500 run's
-- phase logs are the IO500 chapters'). A summary.json stored more than once (the same bytes: a folder copied) is one
-- run: the last copy ingested is kept, as duplicate_logs keeps fio, IOR and mdtest logs (which leaves DLIO's files
-- out: each host's folder of an MLPerf run holds the same configs, which are no copies of a run). Your runs and
-- History read these as they read fio, IOR and mdtest runs, and `iobook check` gates them. Units as DLIO writes them:
-- MB/s in 2^20 bytes; started is the host's local time (no zone). mb_per_s_per_accelerator: mb_per_s over the
-- simulated accelerators of the run (all hosts).
CREATE OR REPLACE VIEW dlio_runs AS
SELECT r.source_id, r.path, r.started, r.ended, r.workload, r.accelerator, r.accelerators, r.hosts, r.hostname,
       r.epochs, r.num_files_train AS files, r.num_samples_per_file AS samples_per_file, r.record_length_bytes,
       r.batch_size, r.read_threads, r.computation_time_s, r.au_mean_pct, r.au_min_config_pct, r.samples_per_s,
       r.mb_per_s, r.mb_per_s / r.accelerators AS mb_per_s_per_accelerator, r.data_size_per_host_gb,
       r.hosts_memory_gb, r.hosts_potential_caching, r.settings
FROM dlio_summary_runs r
WHERE r.organisation = ''
  AND r.source_id NOT IN (SELECT s.source_id FROM sources s JOIN raw_dlio_summaries USING (source_id)
                          WHERE EXISTS (SELECT 1 FROM sources t JOIN raw_dlio_summaries USING (source_id)
                                        WHERE t.sha256 = s.sha256 AND t.source_id > s.source_id AND t.status = 'ok'));

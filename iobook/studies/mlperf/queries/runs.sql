-- Every MLPerf Storage run (view mlperf_runs, one summary.json each) with its result's key (the organisation and the
-- folders from results/ to the folder of its run folders), DLIO's rate recomputed from samples/s and the record length,
-- its rate in bytes per second, and its lowest epoch's AU (DLIO's own list of per-epoch AU in summary.json).
-- Parameters: the bytes in DLIO's "MB" (2^20: DLIO's statscounter.py divides samples/s x record_length by 1024 twice).
SELECT r.path, r.organisation || '/' || regexp_extract(r.result_path, '.*/results/(.*)$', 1) AS result,
       r.organisation, r.system, r.workload, r.accelerator, r.workload_source, r.accelerator_source, r.run,
       r.accelerators, r.hosts, r.au_mean_pct, r.au_min_pct, r.au_mean_pct - r.au_min_pct AS au_margin,
       (SELECT min(e.au_pct) FROM raw_dlio_summary_epochs e WHERE e.source_id = r.source_id) AS lowest_epoch_au,
       r.samples_per_s, r.mb_per_s, r.samples_per_s * r.record_length_bytes / ? AS mb_per_s_recomputed,
       r.mb_per_s * ? AS bytes_per_s, r.record_length_bytes, r.batch_size, r.computation_time_s,
       r.data_set_gb, r.hosts_memory_gb, r.hosts_reporting_no_memory, r.hosts_potential_caching,
       r.host_mem_total_gb, r.described_memory_gb, r.client_memory_gb, r.client_memory_source,
       r.system_match, r.client_link_gbps, r.links_mb_per_s, r.settings
FROM mlperf_runs r
ORDER BY result, r.run, r.path

-- Each system's description as view mlperf_systems reads it (systems/<system>.json): its clients, their CPU, memory
-- and links, and the storage it states (storage hosts listed, data drives, their models, where it states them, and a
-- drive's peak read where written with its unit); runs: how many runs name the system; accelerators: the most
-- simulated accelerators of one of them; best_mb_per_s: the fastest of them in MB/s of 10^6 bytes (DLIO's MB x 2^20 /
-- 10^6), to set against the drives' bound.
SELECT y.organisation, y.system, y.clients, y.client_cores, y.client_dram_mib, y.client_link_gbps,
       y.storage_hosts_listed, y.data_drives_stated, y.data_drives_total, y.data_drive_models, y.data_drives_source,
       y.drive_read_peak_stated, y.drive_read_peak_mb_per_s, y.drives_read_mb_per_s, y.usable_capacity_gib,
       y.solution_type, coalesce(r.runs, 0) AS runs, r.accelerators, r.best_mb_per_s
FROM mlperf_systems y
LEFT JOIN (SELECT system_source_id, count(*) AS runs, max(accelerators) AS accelerators,
                  max(mb_per_s) * 1.048576 AS best_mb_per_s
           FROM mlperf_runs GROUP BY system_source_id) r USING (system_source_id)
ORDER BY y.organisation, y.system

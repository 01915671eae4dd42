-- Each system's description as view mlperf_systems reads it (systems/<system>.json): its clients, their CPU, memory
-- and links, and the storage it states; runs: how many runs name the system.
SELECT y.organisation, y.system, y.clients, y.client_cores, y.client_dram_mib, y.client_link_gbps,
       y.storage_hosts_listed, y.data_drives_stated, y.usable_capacity_gib, y.solution_type,
       (SELECT count(*) FROM mlperf_runs r WHERE r.system_source_id = y.system_source_id) AS runs
FROM mlperf_systems y
ORDER BY y.organisation, y.system

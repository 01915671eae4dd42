-- MLPerf Storage (v1.0): public views over raw_dlio_* (DLIO's summary.json, per_epoch_stats.json and Hydra
-- config.yaml), raw_hydra_overrides (overrides.yaml) and raw_mlperf_* (mlperf_storage_report.json and the systems'
-- descriptions): iobook/parsers/dlio_*.py, hydra_overrides.py, mlperf_*.py.
-- Records carry no file identity: a run is one summary.json, and its siblings are found by path: configs/config.yaml
-- and configs/overrides.yaml in its folder (each host's folder holds them; the run's are those beside its summary),
-- or .hydra/config.yaml and .hydra/overrides.yaml, where DLIO itself writes them (runs of your own: collect_dlio.py).
-- A result is the folder holding the run folders (run1, run_1, run-1, cosmoflow_a100_run_1: the last folder whose
-- name ends in 'run' and a number); organisation and system are the folders around 'results', as the v1.0 tree
-- has them: <organisation>/results/<system>/...; a system's description is <organisation>/systems/<system>.json.
-- Units as DLIO writes them: its "MB" is 2^20 bytes (mb_per_s: samples/s x record_length / 1024 / 1024 in DLIO's
-- utils/statscounter.py, and in every v1.0 run), its GB 2^30 bytes (host_memory_GB, data_size_per_host_GB); link
-- bitrates in Gbit/s (10^9 bit/s) as the systems' descriptions state them, and links_mb_per_s in 10^6 bytes/s.

-- One row per system description: what its clients are and how fast their links are. Clients are the benchmark
-- hosts of a node type named '...client...' (every v1.0 description names them so), or of the description's
-- only node type (Micron's 'Localhost'). client_link_gbps: the sum of bitrate x count of a client node type's NIC
-- ports (the fastest client type when there are several). Data drives: the drives of the storage system's
-- components and of the non-client node types (of the only node type, where the benchmark ran on the storage host:
-- Micron's 'Localhost'), where the description states them, but those it says hold the OS. data_drives_stated: their
-- counts summed as written (a node type's count is per node of it); data_drives_total: the drives of the system, a
-- node type's count times the hosts the description lists of that type (NULL where a node type with data drives
-- lists none: how many such nodes there are is not stated); data_drive_models, data_drives_source (where the
-- description states them: storage_system.hardware_components or a node type's drives) as written.
-- drive_read_peak_stated: the peak read bandwidths the description writes for its data drives, as written;
-- drive_read_peak_mb_per_s: one drive's where the value carries its unit (MB/s, GB/s: 10^6, 10^9 bytes) and every
-- data drive states one alike; a bare number is not read (the template asks GiB/s, which its values do not fit:
-- Hammerspace writes 500 for one SSD). drives_read_mb_per_s: data_drives_total x that peak, the drives' bound.
CREATE OR REPLACE VIEW mlperf_systems AS
WITH described AS (
    SELECT source_id, path,
           regexp_extract(path, '.*/([^/]+)/systems/[^/]+$', 1) AS organisation,
           regexp_extract(path, '.*/systems/([^/]+)\.json$', 1) AS system
    FROM sources JOIN raw_mlperf_systems USING (source_id)
), nodes AS (
    SELECT n.source_id, n.node_index, n.node_type_name, n.cpu_model, n.cpu_sockets, n.cores_per_socket,
           n.dram_mib, n.dram_gb, n.accelerators_stated,
           lower(n.node_type_name) LIKE '%client%'
               OR count(*) OVER (PARTITION BY n.source_id) = 1 AS is_client,
           count(*) OVER (PARTITION BY n.source_id) = 1 AS is_only,
           (SELECT count(*) FROM raw_mlperf_system_hosts h
            WHERE h.source_id = n.source_id AND lower(h.node_type_name) = lower(n.node_type_name)) AS hosts_listed,
           (SELECT sum(p.bitrate_gbps * p.count) FROM raw_mlperf_system_ports p
            WHERE p.source_id = n.source_id AND p.node_index = n.node_index) AS link_gbps
    FROM raw_mlperf_system_nodes n
), data_drives AS (
    SELECT k.source_id, k.model, k.count, k.read_peak_bandwidth,
           CASE WHEN k.node_index IS NULL THEN k.count WHEN c.hosts_listed > 0 THEN k.count * c.hosts_listed END
               AS total,
           CASE WHEN k.node_index IS NULL THEN 'storage_system.hardware_components'
                ELSE 'nodes: ' || c.node_type_name || ' drives' END AS stated_in,
           TRY_CAST(regexp_extract(k.read_peak_bandwidth, '^\s*([0-9]+(?:\.[0-9]+)?)\s*[MG]B/s\s*$', 1) AS DOUBLE)
               * CASE regexp_extract(k.read_peak_bandwidth, '([MG])B/s\s*$', 1) WHEN 'G' THEN 1000 ELSE 1 END
               AS read_peak_mb_per_s
    FROM raw_mlperf_system_drives k LEFT JOIN nodes c ON c.source_id = k.source_id AND c.node_index = k.node_index
    WHERE (NOT coalesce(c.is_client, false) OR c.is_only)
      AND NOT coalesce(regexp_matches(k.purpose, '(?i)\bos\b'), false)
), drives AS (
    SELECT source_id, sum(count) AS data_drives_stated,
           CASE WHEN count(*) = count(total) THEN sum(total) END AS data_drives_total,
           string_agg(DISTINCT model, '; ') AS data_drive_models,
           string_agg(DISTINCT stated_in, '; ') AS data_drives_source,
           string_agg(DISTINCT read_peak_bandwidth, '; ') AS drive_read_peak_stated,
           CASE WHEN count(*) = count(read_peak_mb_per_s) AND min(read_peak_mb_per_s) = max(read_peak_mb_per_s)
                THEN min(read_peak_mb_per_s) END AS drive_read_peak_mb_per_s
    FROM data_drives GROUP BY source_id
)
SELECT d.source_id AS system_source_id, d.path, d.organisation, d.system,
       y.vendor_name, y.solution_name, y.solution_type,
       (SELECT count(*) FROM raw_mlperf_system_hosts h JOIN nodes c
            ON c.source_id = h.source_id AND lower(c.node_type_name) = lower(h.node_type_name) AND c.is_client
        WHERE h.source_id = d.source_id) AS clients,
       (SELECT max(link_gbps) FROM nodes c WHERE c.source_id = d.source_id AND c.is_client) AS client_link_gbps,
       (SELECT string_agg(DISTINCT cpu_model, '; ') FROM nodes c WHERE c.source_id = d.source_id AND c.is_client)
           AS client_cpu,
       (SELECT max(cpu_sockets * cores_per_socket) FROM nodes c WHERE c.source_id = d.source_id AND c.is_client)
           AS client_cores,
       (SELECT max(dram_mib) FROM nodes c WHERE c.source_id = d.source_id AND c.is_client) AS client_dram_mib,
       -- a client's DRAM in DLIO's GB (2^30 bytes): capacity_MiB / 1024, or capacity_GB (10^9 bytes) where a
       -- description states that instead; as stated (Hammerspace's and Micron's capacity_MiB of 256 read as 0.25)
       (SELECT max(coalesce(dram_mib / 1024, dram_gb * 1e9 / 1073741824)) FROM nodes c
        WHERE c.source_id = d.source_id AND c.is_client) AS client_dram_gib,
       (SELECT string_agg(DISTINCT accelerators_stated, '; ') FROM nodes c
        WHERE c.source_id = d.source_id AND c.is_client) AS client_accelerators_stated,
       (SELECT count(*) FROM raw_mlperf_system_hosts h JOIN nodes c
            ON c.source_id = h.source_id AND lower(c.node_type_name) = lower(h.node_type_name) AND NOT c.is_client
        WHERE h.source_id = d.source_id) AS storage_hosts_listed,
       k.data_drives_stated, k.data_drives_total, k.data_drive_models, k.data_drives_source, k.drive_read_peak_stated,
       k.drive_read_peak_mb_per_s, k.data_drives_total * k.drive_read_peak_mb_per_s AS drives_read_mb_per_s,
       y.usable_capacity_gib, y.raw_capacity_gib
FROM described d JOIN raw_mlperf_systems y USING (source_id)
LEFT JOIN drives k USING (source_id);

-- One row per DLIO run (summary.json), an MLPerf Storage submission's or your own. workload: the config's model, else the first of unet3d|resnet50|resnet|cosmoflow
-- in the folders under results/ (workload_source 'config' or 'folder'); accelerator: the type in the workload
-- overrides.yaml chose ('unet3d_a100' -> 'a100'; config.yaml does not hold it), else a100|h100 in the folders
-- (accelerator_source 'overrides' or 'folder'). au_min_pct: the workload's AU minimum by the v1.0 rules
-- (unet3d and resnet50 90 %, cosmoflow 70 %: Table 1 "Minimum AU%" of mlcommons/storage Submission_guidelines.md
-- at be18c3e5, the stored copy with the v1.0 round's timeline; v1.0's workload configs say it as metric.au 0.90 and
-- 0.70); au_min_config_pct: the one the run's config asked of DLIO (metric.au). started/ended: DLIO's times, the
-- host's local time (no zone).
-- data_set_gb: data_size_per_host_GB x hosts; hosts_memory_gb: the sum of host_memory_GB over the hosts DLIO lists
-- (in every v1.0 run it equals hosts x host_mem_total_gb: a host listed with 0 GB is one whose memory DLIO counted
-- under another host's index, not memory missing from the sum); host_mem_total_gb: MemTotal of the host that wrote
-- summary.json (its host_meminfo, /proc/meminfo's kB = 2^10 bytes); described_memory_gb: hosts x a client's DRAM as
-- the system's description states it. client_memory_gb: the memory the v1.0 5x check uses, client_memory_source
-- where it comes from. v1.0 sized the data set from the memory the submitter gave (benchmark.sh datasize
-- --client-host-memory-in-gb, "Memory available in the client where benchmark is run"; it measured none), which no
-- run file records: the submitter's statement of a client's memory is its system's description, so the check takes
-- described_memory_gb, and where no description read states it the memory DLIO measured (the summary.json's sum:
-- what v2.0's mlpstorage datasize uses when given none, rules.py calculate_training_data_size).
-- links_mb_per_s: the run's hosts x its system's client_link_gbps, in MB/s (1 Gbit/s = 125 MB/s); null where no
-- description of the system was read. system_match: 'name' (systems/<system>.json) or 'only description' (the
-- organisation's one description, where none has the system's name: simplyblock's results hold no system folder).
-- organisation and system: '' for a run outside a result tree (<organisation>/results/<system>/...).
CREATE OR REPLACE VIEW dlio_summary_runs AS
WITH runs AS (
    SELECT m.*, s.path,
           regexp_replace(s.path, '/[^/]*$', '') AS folder,
           regexp_extract(s.path, '.*/([^/]+)/results/[^/]+/', 1) AS organisation,
           regexp_extract(s.path, '.*/results/([^/]+)/', 1) AS system,
           regexp_extract(s.path, '(?i)^(.*)/[^/]*run[-_]?\d+/', 1) AS result_path,
           TRY_CAST(regexp_extract(s.path, '(?i).*/[^/]*run[-_]?(\d+)/', 1) AS INTEGER) AS run,
           lower(regexp_extract(s.path, '.*/results/(.*)/[^/]*$', 1)) AS folders
    FROM raw_dlio_summaries m JOIN sources s USING (source_id)
), hosts AS (
    SELECT source_id, sum(memory_gb) AS hosts_memory_gb,
           CAST(list(cpu_count ORDER BY host_index) AS VARCHAR) AS host_cpu_counts,
           count(*) FILTER (memory_gb = 0) AS hosts_reporting_no_memory,
           count(*) FILTER (potential_caching > 0) AS hosts_potential_caching
    FROM raw_dlio_summary_hosts GROUP BY source_id
), configs AS (
    SELECT regexp_replace(s.path, '/(configs|\.hydra)/[^/]*$', '') AS folder, c.*
    FROM raw_dlio_configs c JOIN sources s USING (source_id)
), choices AS (
    SELECT regexp_replace(s.path, '/(configs|\.hydra)/[^/]*$', '') AS folder, o.value AS workload_choice
    FROM raw_hydra_overrides o JOIN sources s USING (source_id)
    WHERE o.key = 'workload' AND o.prefix <> '~'
), named AS (
    SELECT r.*,
           nullif(regexp_replace(regexp_extract(r.folders, '(unet3d|resnet50|resnet|cosmoflow)', 1),
                                 '^resnet$', 'resnet50'), '') AS folder_workload,  -- WEKA's 'resnet-a100'
           nullif(regexp_extract(r.folders, '(a100|h100)', 1), '') AS folder_accelerator,
           nullif(regexp_extract(ch.workload_choice, '_([^_]+)$', 1), '') AS chosen_accelerator,
           c.model, c.au_min, c.record_length_bytes, c.batch_size, c.read_threads, c.computation_threads,
           c.prefetch_size, c.transfer_size, c.computation_time_s, c.dataset_format, c.framework, c.data_loader,
           c.num_files_train AS config_num_files_train, c.num_samples_per_file AS config_num_samples_per_file
    FROM runs r
    LEFT JOIN configs c USING (folder)
    LEFT JOIN choices ch USING (folder)
), systems AS (
    SELECT n.source_id, y.system_source_id, y.client_link_gbps, y.client_dram_gib,
           CASE WHEN y.system = n.system THEN 'name' ELSE 'only description' END AS system_match
    FROM named n JOIN mlperf_systems y ON y.organisation = n.organisation
    WHERE y.system = n.system
       OR (SELECT count(*) FROM mlperf_systems z WHERE z.organisation = n.organisation) = 1
          AND NOT EXISTS (SELECT 1 FROM mlperf_systems z WHERE z.organisation = n.organisation AND z.system = n.system)
)
SELECT n.source_id, n.path, n.result_path, n.organisation, n.system,
       coalesce(n.model, n.folder_workload) AS workload,
       CASE WHEN n.model IS NOT NULL THEN 'config' WHEN n.folder_workload IS NOT NULL THEN 'folder' END
           AS workload_source,
       coalesce(n.chosen_accelerator, n.folder_accelerator) AS accelerator,
       CASE WHEN n.chosen_accelerator IS NOT NULL THEN 'overrides' WHEN n.folder_accelerator IS NOT NULL THEN 'folder'
       END AS accelerator_source,
       n.run, n.num_accelerators AS accelerators, n.num_hosts AS hosts, n.hostname,
       n.au_mean_pct, n.au_stdev_pct, n.au_expectation,
       CASE coalesce(n.model, n.folder_workload) WHEN 'cosmoflow' THEN 70 WHEN 'unet3d' THEN 90 WHEN 'resnet50' THEN 90
       END AS au_min_pct,
       n.au_min * 100 AS au_min_config_pct,
       n.samples_per_s, n.samples_per_s_stdev, n.mb_per_s, n.mb_per_s_stdev,
       TRY_CAST(n.started AS TIMESTAMP) AS started, TRY_CAST(n.ended AS TIMESTAMP) AS ended,
       n.epochs, n.num_files_train, n.num_files_eval, n.num_samples_per_file, n.record_length_bytes,
       n.batch_size, n.read_threads, n.computation_time_s,
       n.data_size_per_host_gb, n.data_size_per_host_gb * n.num_hosts AS data_set_gb,
       h.hosts_memory_gb, h.hosts_reporting_no_memory, h.hosts_potential_caching,
       n.mem_total_kb / 1048576 AS host_mem_total_gb, n.num_hosts * y.client_dram_gib AS described_memory_gb,
       coalesce(n.num_hosts * y.client_dram_gib, nullif(h.hosts_memory_gb, 0)) AS client_memory_gb,
       CASE WHEN y.client_dram_gib IS NOT NULL THEN 'system description DRAM x hosts'
            WHEN nullif(h.hosts_memory_gb, 0) IS NOT NULL THEN 'summary.json host_memory_GB' END
           AS client_memory_source,
       n.cpu_model, n.mem_total_kb, h.host_cpu_counts,
       y.system_source_id, y.system_match, y.client_link_gbps,
       n.num_hosts * y.client_link_gbps * 125 AS links_mb_per_s,
       -- what must be equal across a result's runs (mlperf_run_flags 'settings_differ'): the workload, its scale and
       -- DLIO's I/O parameters; not the folders the data and checkpoints were in
       CAST(struct_pack(workload := coalesce(n.model, n.folder_workload),
                        accelerator := coalesce(n.chosen_accelerator, n.folder_accelerator),
                        accelerators := n.num_accelerators, hosts := n.num_hosts, epochs := n.epochs,
                        files := n.num_files_train, samples_per_file := n.num_samples_per_file,
                        record_length := n.record_length_bytes, batch_size := n.batch_size,
                        read_threads := n.read_threads, computation_threads := n.computation_threads,
                        prefetch_size := n.prefetch_size, transfer_size := n.transfer_size,
                        computation_time := n.computation_time_s, au := n.au_min, format := n.dataset_format,
                        framework := n.framework, data_loader := n.data_loader) AS VARCHAR) AS settings
FROM named n
LEFT JOIN hosts h USING (source_id)
LEFT JOIN systems y USING (source_id);

-- One row per MLPerf Storage run: a DLIO run in a result tree, <organisation>/results/<system>/... as the v1.0
-- results are laid out. Every other DLIO run is yours (view dlio_runs): Your runs and History read those.
CREATE OR REPLACE VIEW mlperf_runs AS
SELECT * FROM dlio_summary_runs WHERE organisation <> '';

-- The validity audit: one row per run and finding. Codes, their rules and sources (the v1.0 texts: RULES_V1 =
-- mlcommons/storage Submission_guidelines.md at be18c3e5, the earliest stored copy, its timeline the v1.0 round's
-- ("Aug 21, 2024 | Submissions due") under a V2.0 heading, v1.0's own tagged copy not being stored; REPORTGEN_V1 =
-- mlcommons/storage report.py at 16b959b2, the reportgen whose keys the v1.0 mlperf_storage_report.json files carry;
-- BENCHMARK_V1 = benchmark.sh of v1.0 as submitted in mlcommons/storage_results_v1.0 at 1c5efa73,
-- Closed/YanRongTech/code/benchmark_code_v1.0/benchmark.sh; iobook/studies/mlperf/audit.py quotes each):
--   au_below_minimum     au_mean_pct < au_min_pct: the run fails (unet3d and resnet50 90 %, cosmoflow 70 %: RULES_V1
--                        2.1 Table 1 "Minimum AU%" and 4 "the AU should be equal to or greater than the minimum
--                        value"; REPORTGEN_V1 rejects a run whose train_au_meet_expectation is "fail").
--   au_within_one_point  au_min_pct <= au_mean_pct < au_min_pct + 1: passes by less than one point (this book's
--                        margin: AU is met while the storage barely keeps up, mlcommons/storage issue #464).
--   data_set_below_5x_memory  data_set_gb < 5 x client_memory_gb, v1.0's rule: "the dataset size must be at least
--                        5x larger than the sum of memory across all of the MLPerf Storage nodes" (RULES_V1 6.6),
--                        sized from the memory the submitter gave (BENCHMARK_V1 datasize, HOST_MEMORY_MULTIPLIER=5,
--                        --client-host-memory-in-gb): here the memory the system's description states, else the
--                        memory DLIO measured (client_memory_source says which).
--   data_set_below_5x_measured  data_set_gb < 5 x hosts_memory_gb, the memory DLIO measured on the hosts: v2.0's
--                        rule applied to v1.0 results (mlpstorage rules.py calculate_training_data_size at 2319cad5
--                        collects "Total Memory" from /proc/meminfo where it is given none; v1.0 measured none).
--   host_reports_no_memory    a host with host_memory_GB 0 in summary.json (DLIO's list; the sum still holds the
--                        memory of every host where it equals hosts x host_mem_total_gb).
--   potential_caching    a host with potential_caching above 0 (DLIO's own check of the data set against the
--                        host's memory).
--   not_five_runs        a result (the folder of its run folders) with other than 5 runs (REPORTGEN_V1
--                        REQUIRED_BENCHMARK_RUNS = 5; RULES_V1 3: "A benchmark result is the mean of 5 run results").
--   settings_differ      a result whose runs differ in mlperf_runs.settings (the workload, accelerators, hosts and
--                        DLIO's I/O parameters): its runs are not repetitions of one configuration (REPORTGEN_V1
--                        rejects runs that differ in model, accelerator, accelerators, training files or samples
--                        per file; the other settings are this book's).
--   clients_differ       a result whose runs name other clients: the host that wrote summary.json, its CPU model,
--                        the CPU counts DLIO lists per host, or the memory DLIO measured more than 1 % apart
--                        (RULES_V1 3: "The 5 runs must be done on the same machine(s)"; REPORTGEN_V1 checks none).
--   rate_above_links     mb_per_s x 2^20 / 10^6 > links_mb_per_s (DLIO's MB in the links' 10^6 bytes): the run read
--                        faster than its clients' links, as its system's description states them, can carry.
--   log_disagrees_with_summary  the run's dlio.log prints a value its summary.json does not hold, beyond the log's
--                        printed rounding (view dlio_logs, agrees_with_summary): one of the two is not the run's.
CREATE OR REPLACE VIEW mlperf_run_flags AS
-- mlperf_runs computed once for the audit's eleven reads of it (expanded nine times it ran out of a chapter's memory)
WITH run AS MATERIALIZED (SELECT * FROM mlperf_runs),
results AS (
    SELECT result_path, count(*) AS runs, count(DISTINCT settings) AS settings,
           count(DISTINCT CAST(struct_pack(hostname, cpu_model, host_cpu_counts) AS VARCHAR)) AS clients,
           max(nullif(hosts_memory_gb, 0)) / min(nullif(hosts_memory_gb, 0)) - 1 AS memory_spread
    FROM run GROUP BY result_path
)
SELECT path, 'au_below_minimum' AS code,
       format('AU {:.2f} % below the {} minimum of {} %', au_mean_pct, workload, au_min_pct) AS detail
FROM run WHERE au_mean_pct < au_min_pct
UNION ALL
SELECT path, 'au_within_one_point',
       format('AU {:.2f} % is {:.2f} points above the {} minimum of {} %', au_mean_pct, au_mean_pct - au_min_pct,
              workload, au_min_pct)
FROM run WHERE au_mean_pct >= au_min_pct AND au_mean_pct < au_min_pct + 1
UNION ALL
SELECT path, 'data_set_below_5x_memory',
       format('data set {:.1f} GB < 5 x {:.1f} GB of the {} hosts ({})', data_set_gb, client_memory_gb, hosts,
              client_memory_source)
FROM run WHERE data_set_gb < 5 * client_memory_gb
UNION ALL
SELECT path, 'data_set_below_5x_measured',
       format('data set {:.1f} GB < 5 x {:.1f} GB DLIO measured on the {} hosts', data_set_gb, hosts_memory_gb, hosts)
FROM run WHERE data_set_gb < 5 * hosts_memory_gb
UNION ALL
SELECT path, 'host_reports_no_memory', format('{} of {} hosts report 0 GB of memory', hosts_reporting_no_memory, hosts)
FROM run WHERE hosts_reporting_no_memory > 0
UNION ALL
SELECT path, 'potential_caching', format('{} of {} hosts report potential_caching', hosts_potential_caching, hosts)
FROM run WHERE hosts_potential_caching > 0
UNION ALL
SELECT r.path, 'not_five_runs', format('{} runs in {}', s.runs, r.result_path)
FROM run r JOIN results s USING (result_path) WHERE s.runs <> 5
UNION ALL
SELECT r.path, 'settings_differ', format('{} different settings among the {} runs of {}', s.settings, s.runs,
                                         r.result_path)
FROM run r JOIN results s USING (result_path) WHERE s.settings > 1
UNION ALL
SELECT r.path, 'clients_differ',
       format('{} different clients, memory {:.1%} apart, among the {} runs of {}', s.clients, s.memory_spread, s.runs,
              r.result_path)
FROM run r JOIN results s USING (result_path) WHERE s.clients > 1 OR s.memory_spread > 0.01
UNION ALL
SELECT path, 'rate_above_links',
       format('{:.0f} MB/s (10^6 bytes) above the {:.0f} MB/s of {} hosts x {} Gbit/s', mb_per_s * 1.048576,
              links_mb_per_s, hosts, client_link_gbps)
FROM run WHERE mb_per_s * 1.048576 > links_mb_per_s
UNION ALL
SELECT r.path, 'log_disagrees_with_summary', format('{}: {}', l.path, l.disagreements)
FROM run r JOIN dlio_logs l ON l.summary_source_id = r.source_id WHERE NOT l.agrees_with_summary;

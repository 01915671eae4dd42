-- IOR public views. Units are in the column names: MiB/s, seconds, bytes.
-- test_id is '<source_id>:<test_index>' (test_index numbers the tests of one file in order).

-- A per-rank CSV names no test; IOR wrote it because a log's command line said
-- saveRankPerformanceDetailsCSV=<path>. Link the CSV to that log's test when both sit in the same
-- folder and the CSV's file name is the one on the command line.
-- The folder and file name are computed once a side and joined on (a join on the regexps themselves was
-- planned as a cross product: 64 MB at 20,000 files, out of the writer's memory at 80,000).
CREATE OR REPLACE VIEW ior_rank_csv_links AS
WITH csv AS (
    SELECT s.source_id, regexp_replace(s.path, '[^/]*$', '') AS folder, regexp_extract(s.path, '[^/]*$') AS name
    FROM raw_ior_tests AS t JOIN sources AS s USING (source_id)
    WHERE t.layout = 'rank-csv'
), log AS (
    SELECT t.source_id, t.test_index, regexp_replace(s.path, '[^/]*$', '') AS folder,
           regexp_extract(t.rank_csv, '[^/]*$') AS name
    FROM raw_ior_tests AS t JOIN sources AS s USING (source_id)
    WHERE t.rank_csv IS NOT NULL
)
SELECT csv.source_id AS csv_source_id, log.source_id || ':' || log.test_index AS test_id
FROM csv JOIN log USING (folder, name)
QUALIFY row_number() OVER (PARTITION BY csv.source_id ORDER BY log.source_id, log.test_index) = 1;

-- One row per test; a per-rank CSV appears as a test of its own only when no log claims it.
CREATE OR REPLACE VIEW ior_tests AS
SELECT t.source_id || ':' || t.test_index AS test_id,
       t.source_id, t.test_index, t.run_index, t.layout, t.version, t.ior_test_id, t.began, t.command,
       t.api, t.tasks, t.tasks_per_node, t.nodes, t.segments,
       t.transfer_bytes, t.block_bytes,
       t.sizes_from,  -- summary/options/command: exact bytes; rounded: from a rounded print such as "9.46 TiB"
       t.file_per_proc, t.repetitions, t.stonewall_s,
       t.stonewall_pairs_min, t.stonewall_pairs_max,  -- transfers per rank at the stonewall, least and most
       t.stonewall_mean_gib, t.stonewall_hit_s,  -- the ranks' mean data then (GiB, as printed), and when it hit
       t.rank_csv, t.finished,
       t.collective, t.ordering_in_file, t.ordering_inter_file,  -- from the option block (IOR >= 3.2)
       t.host  -- rank 0's node, from the "Machine" line
FROM raw_ior_tests AS t
WHERE NOT (t.layout = 'rank-csv' AND t.source_id IN (SELECT csv_source_id FROM ior_rank_csv_links));

-- latency_is_phase_time: the Latency(s) column cannot be a mean time per operation (IOR 3.3.0 printed the phase's
-- time there, e.g. CSIRO's 2020 ior_hard_read.txt: 260.05 s beside wr/rd 260.13 s): a rank's operations, one after
-- another, times that latency exceed twice the phase's time (IOR's I/O is synchronous within a rank).
CREATE OR REPLACE VIEW ior_iterations AS
SELECT i.source_id || ':' || i.test_index AS test_id, i.access, i.iteration,
       i.bw_mib_s, i.iops, i.latency_s, i.block_kib, i.xfer_kib, i.open_s, i.wrrd_s, i.close_s, i.total_s,
       coalesce(i.latency_s * t.segments * i.block_kib / nullif(i.xfer_kib, 0) > 2 * i.wrrd_s, false)
           AS latency_is_phase_time
FROM raw_ior_iterations AS i LEFT JOIN raw_ior_tests AS t USING (source_id, test_index);

-- IOR's own "Summary of all tests" (or JSON summary) when the log has one; otherwise computed here
-- from the iterations the way IOR does it (population standard deviation).
CREATE OR REPLACE VIEW ior_summary AS
SELECT source_id || ':' || test_index AS test_id, access,
       bw_max_mib_s, bw_min_mib_s, bw_mean_mib_s, bw_std_mib_s,
       ops_max, ops_min, ops_mean, ops_std, mean_time_s, stonewall_time_s, stonewall_bw_mib_s,
       iterations, 'log' AS summary_from
FROM raw_ior_summary
UNION ALL
SELECT i.source_id || ':' || i.test_index AS test_id, i.access,
       max(i.bw_mib_s), min(i.bw_mib_s), avg(i.bw_mib_s), stddev_pop(i.bw_mib_s),
       max(i.iops), min(i.iops), avg(i.iops), stddev_pop(i.iops), avg(i.total_s), NULL, NULL,
       count(*), 'iterations' AS summary_from
FROM raw_ior_iterations AS i
WHERE i.access IN ('write', 'read')
  AND NOT EXISTS (SELECT 1 FROM raw_ior_summary AS s
                  WHERE s.source_id = i.source_id AND s.test_index = i.test_index AND s.access = i.access)
GROUP BY i.source_id, i.test_index, i.access;

CREATE OR REPLACE VIEW ior_ranks AS
SELECT coalesce(l.test_id, r.source_id || ':' || r.test_index) AS test_id,
       r.source_id AS csv_source_id, r.access, r.rank, r.iteration,
       r.time_with_openclose_s, r.time_s, r.bw_with_openclose_mib_s, r.bw_mib_s
FROM raw_ior_ranks AS r
LEFT JOIN ior_rank_csv_links AS l ON l.csv_source_id = r.source_id


-- Every rank's time of every per-rank CSV read (one copy of each run: `kept`), with what places it: the IOR test or
-- mdtest log whose command line wrote the CSV (same folder, file named on the command line), that test's tasks per
-- node, the Nodemap its mdtest log printed (which ranks share rank 0's node), and the items per rank at the
-- stonewall. Numbers and ids only: names join once per phase (phases.sql), so the table stays narrow however many
-- ranks it holds, and copies of a run are dropped before their ranks are read.
CREATE OR REPLACE TEMP TABLE straggler_rows AS
WITH mdtest_logs AS (
    SELECT c.source_id AS csv_source_id, m.source_id AS log_source_id,
           CASE WHEN m.nodes > 0 AND coalesce(m.launched_tasks, m.tasks) % m.nodes = 0
                THEN coalesce(m.launched_tasks, m.tasks) // m.nodes END AS tasks_per_node,
           m.stonewall_items_min, m.stonewall_items_max, m.nodemap_ranks, m.nodemap_stride
    FROM (SELECT DISTINCT source_id, path FROM mdtest_ranks) c
    JOIN mdtest_runs m
      ON regexp_replace(m.path, '[^/]*$', '') = regexp_replace(c.path, '[^/]*$', '')
     AND regexp_extract(regexp_extract(m.command, '--saveRankPerformanceDetails=([^'' ]+)', 1), '[^/]*$')
         = regexp_extract(c.path, '[^/]*$')
    QUALIFY row_number() OVER (PARTITION BY c.source_id ORDER BY m.source_id, m.summary_index) = 1
), csv_logs AS (  -- the log that wrote each per-rank CSV
    SELECT DISTINCT r.csv_source_id, t.source_id AS log_source_id FROM ior_ranks r JOIN ior_tests t USING (test_id)
    UNION
    SELECT DISTINCT k.source_id, l.log_source_id
    FROM mdtest_ranks k LEFT JOIN mdtest_logs l ON l.csv_source_id = k.source_id
), kept AS (
    -- each run once: of a run stored twice, the copy every chapter counts (io500_runs.counted) ...
    SELECT c.csv_source_id
    FROM csv_logs c JOIN sources s ON s.source_id = c.csv_source_id
    LEFT JOIN io500_phase_log_links k ON k.source_id = c.log_source_id
    WHERE k.run_id IS NULL OR k.run_id IN (SELECT run_id FROM io500_runs WHERE counted)
    -- ... and a per-rank CSV stored twice outside a run (the same bytes: the copy read last is kept)
    QUALIFY dense_rank() OVER (PARTITION BY s.sha256 ORDER BY c.csv_source_id DESC) = 1
), ranks AS (
    SELECT 'IOR' AS tool, r.csv_source_id, r.access AS operation, r.iteration, r.rank, r.time_s,
           t.tasks_per_node, t.source_id AS log_source_id,
           -- IOR prints the transfers per rank at the stonewall for the writes
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_min END AS stonewall_items_min,
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_max END AS stonewall_items_max,
           NULL::BIGINT AS nodemap_ranks, NULL::BIGINT AS nodemap_stride,
           t.tasks AS log_tasks, t.nodes AS log_nodes, t.tasks_per_node AS log_tasks_per_node
    FROM ior_ranks r LEFT JOIN ior_tests t USING (test_id)
    WHERE r.csv_source_id IN (SELECT csv_source_id FROM kept)
    UNION ALL
    SELECT 'mdtest', k.source_id, k.operation, 0, k.rank, k.time_s,
           l.tasks_per_node, l.log_source_id, l.stonewall_items_min, l.stonewall_items_max,
           l.nodemap_ranks, l.nodemap_stride, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT
    FROM mdtest_ranks k LEFT JOIN mdtest_logs l ON l.csv_source_id = k.source_id
    WHERE NOT k.all_ranks AND k.source_id IN (SELECT csv_source_id FROM kept)
      -- a phase whose log printed that its operation failed is no phase (mdtest_results.failed)
      AND NOT EXISTS (SELECT 1 FROM raw_mdtest_results x WHERE x.source_id = l.log_source_id
                      AND x.operation = k.operation AND x.failure_line IS NOT NULL)
)
SELECT * FROM ranks WHERE time_s IS NOT NULL

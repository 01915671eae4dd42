-- One row per phase (one CSV's access/operation and iteration) with what names and places it, its ranks' times
-- summarised, and the IO500 run and phase its log belongs to (io500_phase_log_links); then each rank's time numbered
-- by its phase (straggler_ranks), and the phases returned. An IOR phase of an IO500 run takes the Nodemap of the
-- run's mdtest logs when they all print the same one: the C application runs every phase in one MPI job.
CREATE OR REPLACE TEMP TABLE straggler_phases AS
WITH run_nodemaps AS (
    SELECT k.run_id, min(m.nodemap_ranks) AS nodemap_ranks, min(m.nodemap_stride) AS nodemap_stride,
           -- the mdtest logs' own tasks and nodes, where they all print the same
           CASE WHEN count(DISTINCT coalesce(m.launched_tasks, m.tasks)) = 1
                THEN min(coalesce(m.launched_tasks, m.tasks)) END AS map_tasks,
           CASE WHEN count(DISTINCT m.nodes) = 1 THEN min(m.nodes) END AS map_nodes
    FROM io500_phase_log_links k JOIN mdtest_runs m USING (source_id)
    WHERE m.nodemap_ranks IS NOT NULL
    GROUP BY k.run_id
    HAVING count(DISTINCT m.nodemap_ranks) = 1 AND count(DISTINCT coalesce(m.nodemap_stride, -1)) = 1
), phases AS (
    SELECT csv_source_id, operation, iteration, any_value(tool) AS tool,
           any_value(tasks_per_node) AS tasks_per_node, any_value(log_source_id) AS log_source_id,
           any_value(stonewall_items_min) AS stonewall_items_min,
           any_value(stonewall_items_max) AS stonewall_items_max, any_value(nodemap_ranks) AS nodemap_ranks,
           any_value(nodemap_stride) AS nodemap_stride, any_value(log_tasks) AS log_tasks,
           any_value(log_nodes) AS log_nodes, any_value(log_tasks_per_node) AS log_tasks_per_node,
           count(*) AS ranks, median(time_s) AS median_s, avg(time_s ORDER BY rank) AS mean_s, max(time_s) AS max_s,
           min(time_s) AS min_s
    FROM straggler_rows GROUP BY csv_source_id, operation, iteration
)
SELECT dense_rank() OVER (ORDER BY s.path, r.operation, r.iteration) AS phase_id,
       r.* EXCLUDE (nodemap_ranks, nodemap_stride, log_tasks, log_nodes, log_tasks_per_node),
       coalesce(r.nodemap_ranks, n.nodemap_ranks) AS nodemap_ranks,
       CASE WHEN r.nodemap_ranks IS NOT NULL THEN r.nodemap_stride ELSE n.nodemap_stride END AS nodemap_stride,
       CASE WHEN r.nodemap_ranks IS NOT NULL THEN 'its mdtest log'
            WHEN n.nodemap_ranks IS NOT NULL THEN 'the IO500 run''s mdtest logs' END AS nodemap_from,
       -- an inherited Nodemap against the IOR log's own shape: its tasks per node = the ranks the map puts on
       -- rank 0's node, its tasks and nodes = the mdtest logs' (NULL: the IOR log prints no shape to check)
       CASE WHEN r.nodemap_ranks IS NULL AND n.nodemap_ranks IS NOT NULL
             AND r.log_tasks_per_node IS NOT NULL AND r.log_nodes IS NOT NULL
            THEN r.log_tasks_per_node = n.nodemap_ranks AND r.log_nodes IS NOT DISTINCT FROM n.map_nodes
                 AND r.log_tasks IS NOT DISTINCT FROM n.map_tasks END AS map_agrees,
       s.path, k.run_id, x.run_key, x.filesystem, x.institution, x.system, x.year,
       p.phase AS io500_phase, p.time_s AS io500_time_s, p.stonewall_s,
       (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f WHERE f.run_id = k.run_id)
           AS validity_flags  -- the IO500 run's audit flags: an example is picked from unflagged runs
FROM phases r
JOIN sources s ON s.source_id = r.csv_source_id
LEFT JOIN io500_phase_log_links k ON k.source_id = r.log_source_id
LEFT JOIN io500_runs x ON x.run_id = k.run_id
LEFT JOIN io500_phases p ON p.run_id = k.run_id AND p.phase = k.phase
LEFT JOIN run_nodemaps n ON n.run_id = k.run_id;
CREATE OR REPLACE TEMP TABLE straggler_ranks AS
SELECT p.phase_id, r.rank, r.time_s
FROM straggler_rows r JOIN straggler_phases p USING (csv_source_id, operation, iteration);
DROP TABLE straggler_rows;
SELECT * FROM straggler_phases ORDER BY phase_id;

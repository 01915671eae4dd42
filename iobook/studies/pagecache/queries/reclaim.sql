-- Per step of the runs (?: run ids), how much the reclaim counters rose (last sample - first): the cgroup's pgpgin
-- and pgpgout (charge and uncharge events: a page, or a large folio, entering or leaving it), global reclaim scanned
-- (vmstat pgscan_kswapd + pgscan_direct), and all reclaim including cgroups' (vmstat pgscan_file, pgsteal_file).
WITH counters AS (
    SELECT l.run_id, l.step_index, m.source_id,
           CASE WHEN ends_with(m.instance, '/memory.stat') THEN 'cgroup ' ELSE 'vmstat ' END || m.metric AS counter,
           max(m.value) - min(m.value) AS increase
    FROM (SELECT DISTINCT run_id, step_index, source_id FROM run_labels WHERE list_contains(?, run_id)) l
    JOIN monitor_series m ON m.source_id = l.source_id
    WHERE m.tool = 'proc'
      AND m.metric IN ('pgpgin', 'pgpgout', 'pgscan_kswapd', 'pgscan_direct', 'pgscan_file', 'pgsteal_file')
      AND (ends_with(m.instance, '/memory.stat') OR m.instance = '/proc/vmstat')
    GROUP BY ALL
)
SELECT run_id, step_index, any_value(source_id) AS source_id,
       max(increase) FILTER (counter = 'cgroup pgpgin') AS cgroup_pgpgin_events,
       max(increase) FILTER (counter = 'cgroup pgpgout') AS cgroup_pgpgout_events,
       max(increase) FILTER (counter = 'vmstat pgscan_kswapd')
           + max(increase) FILTER (counter = 'vmstat pgscan_direct') AS global_reclaim_scanned_pages,
       max(increase) FILTER (counter = 'vmstat pgscan_file') AS all_reclaim_scanned_file_pages,
       max(increase) FILTER (counter = 'vmstat pgsteal_file') AS all_reclaim_stolen_file_pages
FROM counters GROUP BY ALL ORDER BY run_id, step_index

-- Per step of the runs given: what vmstat saw during it (parameter: run ids).
SELECT l.run_id, l.step_index, m.source_id AS vmstat_source_id,
       round(avg(m.value) FILTER (m.metric = 'r'), 6) AS run_queue,
       round(avg(m.value) FILTER (m.metric = 'us'), 6) AS user_pct,
       round(avg(m.value) FILTER (m.metric = 'sy'), 6) AS system_pct,
       round(avg(m.value) FILTER (m.metric = 'id'), 6) AS idle_pct,
       round(avg(m.value) FILTER (m.metric = 'wa'), 6) AS iowait_pct,
       round(avg(m.value) FILTER (m.metric = 'st'), 6) AS steal_pct,
       round(avg(m.value) FILTER (m.metric = 'bi') / 1024, 6) AS disk_read_mib_s,
       round(min(m.value) FILTER (m.metric = 'free') / 2^20, 6) AS free_gib
FROM (SELECT DISTINCT run_id, step_index, source_id FROM run_labels WHERE list_contains(?, run_id)) l
JOIN run_steps s USING (run_id, step_index)
JOIN monitor_series m ON m.source_id = l.source_id
WHERE m.tool = 'vmstat' AND m.t_s >= 1 AND m.t_s <= ceil(s.seconds)
GROUP BY ALL
ORDER BY l.run_id, l.step_index

-- The memory cgroup's page cache, dirty and write-back bytes (?: metrics) of the runs' steps (?: run ids) each second,
-- in MiB, from the collector's proc sampler of memory.stat (view monitor_series); t_s: seconds since the sampler
-- started, one second before its step.
SELECT l.run_id, l.step_index, s.name AS step, m.source_id, round(m.t_s) AS t_s, m.metric,
       max(m.value) / 2^20 AS mib
FROM (SELECT DISTINCT run_id, step_index, source_id FROM run_labels WHERE list_contains(?, run_id)) l
JOIN run_steps s USING (run_id, step_index)
JOIN monitor_series m ON m.source_id = l.source_id
WHERE m.tool = 'proc' AND ends_with(m.instance, '/memory.stat') AND list_contains(?, m.metric)
  AND m.unit = 'bytes'
GROUP BY ALL
ORDER BY l.run_id, l.step_index, t_s, m.metric

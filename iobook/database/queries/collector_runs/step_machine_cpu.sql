-- Per step of the runs given: the whole machine's CPU busy share mpstat saw (parameter: run ids).
SELECT b.run_id, b.step_index, min(b.source_id) AS mpstat_source_id,
       round(avg(b.busy_pct) FILTER (b.t_s = 0) / 100 * r.cores, 6) AS busy_cpus_before,
       round(avg(b.busy_pct) FILTER (b.t_s >= 1 AND b.t_s <= ceil(s.seconds)) / 100 * r.cores, 6)
           AS busy_cpus_during
FROM step_cpu_busy b
JOIN run_steps s USING (run_id, step_index)
JOIN runs r USING (run_id)
WHERE list_contains(?, b.run_id)
GROUP BY b.run_id, b.step_index, r.cores
ORDER BY b.run_id, b.step_index

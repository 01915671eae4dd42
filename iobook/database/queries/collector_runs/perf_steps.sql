-- Per step of the runs given: perf stat's task-clock, the CPU seconds fio used (parameter: run ids).
SELECT DISTINCT l.run_id, l.step_index, p.source_id AS perf_source_id, p.value / 1000 AS task_clock_s
FROM perf_counters p JOIN run_labels l USING (source_id)
WHERE list_contains(?, l.run_id) AND p.event = 'task-clock' AND p.unit = 'msec'

-- mdtest-hard-delete (kIOPS) of the runs (?: run ids) with the run's start: the IO500 apps print it as
-- 2023.10.22-06.40.20 (bash script) or 2023-10-22 06:40:20 (C app).
SELECT p.run_id, p.value AS kiops, p.source_id,
       try_strptime(r.started, ['%Y.%m.%d-%H.%M.%S', '%Y-%m-%d %H:%M:%S']) AS started
FROM io500_phases p JOIN io500_runs r USING (run_id)
WHERE p.phase = 'mdtest-hard-delete' AND list_contains(?, p.run_id)

-- The phases of these runs (run ids ?) in the order each run ran them, with the run's key.
SELECT r.run_id, r.run_key, p.phase, p.value
FROM io500_runs r JOIN io500_phases p USING (run_id)
WHERE list_contains(?, r.run_id)
ORDER BY r.run_id, p.position

-- The scored phases of the runs named in the list parameter (run_key as io500_runs names them), in the list's order
-- and each run's phase order. Parameters: the run keys, twice.
SELECT r.run_key, p.phase, p.value, p.unit, p.time_s, p.valid
FROM io500_runs r JOIN io500_phases p USING (run_id)
WHERE list_contains(?, r.run_key) AND p.scored
ORDER BY list_position(?, r.run_key), p.position

-- Each bandwidth phase of the runs (counted once) whose setup states a limit, against the least such limit
-- (view io500_run_bounds).
SELECT r.run_key, b.phase, b.gib_s, b.bound_gib_s, b.binding, b.stated, b.share
FROM io500_run_bounds b JOIN io500_runs r USING (run_id)
WHERE r.counted
ORDER BY r.run_key, b.phase

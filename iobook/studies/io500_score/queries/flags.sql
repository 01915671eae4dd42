-- The validity audit's flags (view io500_run_flags: one coded finding per run, with what its files show and
-- where), of each run counted once.
SELECT r.run_key, r.institution, r.system, f.code, f.detail, f.source
FROM io500_run_flags f JOIN io500_runs r USING (run_id)
WHERE r.counted
ORDER BY f.code, r.run_key

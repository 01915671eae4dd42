-- Every file of these runs (run ids ?) with the run it belongs to.
SELECT r.run_key, f.source_id, f.path
FROM io500_run_files f JOIN io500_runs r USING (run_id)
WHERE list_contains(?, f.run_id)
ORDER BY r.run_key, f.path

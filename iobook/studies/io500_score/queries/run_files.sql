-- The files (source ids) of the runs named in the list parameter: summaries, logs and setup files (io500_run_files).
SELECT DISTINCT f.source_id
FROM io500_run_files f JOIN io500_runs r USING (run_id)
WHERE list_contains(?, r.run_key)

-- The validity audit's findings (view mlperf_run_flags), each with its run's result key (as queries/runs.sql makes it).
SELECT f.code, f.detail, f.path, r.organisation || '/' || regexp_extract(r.result_path, '.*/results/(.*)$', 1) AS result
FROM mlperf_run_flags f JOIN mlperf_runs r USING (path)
ORDER BY f.code, result, f.path

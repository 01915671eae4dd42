-- For each mlperf_storage_report.json, every result some of whose runs have the samples/s and MB/s of one of the
-- report's runs (within a relative ?), and how many: where a report's runs come from when they are not its result's.
WITH report_runs AS (
    SELECT s.path, p.position, p.samples_per_s, p.mb_per_s
    FROM raw_mlperf_report_runs p JOIN sources s USING (source_id)
)
SELECT q.path, r.organisation || '/' || regexp_extract(r.result_path, '.*/results/(.*)$', 1) AS result,
       any_value(r.accelerators) AS accelerators, any_value(r.hosts) AS hosts, count(DISTINCT q.position) AS runs_equal
FROM report_runs q JOIN mlperf_runs r
  ON abs(r.samples_per_s - q.samples_per_s) <= ? * abs(q.samples_per_s) AND abs(r.mb_per_s - q.mb_per_s) <= ? * abs(q.mb_per_s)
GROUP BY q.path, r.result_path, r.organisation
ORDER BY q.path, runs_equal DESC, result

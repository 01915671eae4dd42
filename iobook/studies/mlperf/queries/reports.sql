-- Each mlperf_storage_report.json beside the result it sums up: the folder of the result's run folders, or the folder
-- above it where the runs sit in a runs/ folder. Its published mean and stdev of samples/s and MB/s (MB as DLIO writes
-- it), and the same recomputed from the result's summary.json files: their mean and their population stdev (numpy's
-- default, which mlpstorage reportgen uses). runs_equal: the report's runs whose samples/s and MB/s are those of a
-- run of the result, within a relative ? (the JSON's digits).
WITH reports AS (
    SELECT r.*, s.path, regexp_replace(s.path, '/[^/]*$', '') AS folder
    FROM raw_mlperf_reports r JOIN sources s USING (source_id)
), report_runs AS (
    SELECT regexp_replace(s.path, '/[^/]*$', '') AS folder, p.samples_per_s, p.mb_per_s
    FROM raw_mlperf_report_runs p JOIN sources s USING (source_id)
), runs AS (
    SELECT r.*, regexp_replace(r.result_path, '/runs$', '') AS report_folder FROM mlperf_runs r
), results AS (
    SELECT result_path, any_value(report_folder) AS report_folder, any_value(organisation) AS organisation,
           any_value(system) AS system, any_value(workload) AS workload, any_value(accelerator) AS accelerator,
           max(accelerators) AS accelerators, max(hosts) AS hosts, count(*) AS runs,
           -- over each result's runs in path order: a parallel avg() adds them in any order, and its last bits moved
           -- from one build to the next
           list_avg(list(samples_per_s ORDER BY path)) AS samples_per_s,
           list_stddev_pop(list(samples_per_s ORDER BY path)) AS samples_per_s_stdev,
           list_avg(list(mb_per_s ORDER BY path)) AS mb_per_s,
           list_stddev_pop(list(mb_per_s ORDER BY path)) AS mb_per_s_stdev
    FROM runs GROUP BY result_path
)
SELECT p.path, s.organisation || '/' || regexp_extract(s.result_path, '.*/results/(.*)$', 1) AS result,
       s.organisation, s.system, s.workload, s.accelerator, p.num_accelerators AS report_accelerators,
       s.accelerators, s.hosts, p.num_benchmark_runs AS report_runs, s.runs,
       p.mb_per_s AS published_mb_per_s, s.mb_per_s, p.mb_per_s_stdev AS published_mb_per_s_stdev,
       s.mb_per_s_stdev, p.samples_per_s AS published_samples_per_s, s.samples_per_s,
       p.samples_per_s_stdev AS published_samples_per_s_stdev, s.samples_per_s_stdev,
       (SELECT count(*) FROM report_runs q WHERE q.folder = p.folder AND EXISTS (
            SELECT 1 FROM runs r WHERE r.result_path = s.result_path
               AND abs(r.samples_per_s - q.samples_per_s) <= ? * abs(q.samples_per_s)
               AND abs(r.mb_per_s - q.mb_per_s) <= ? * abs(q.mb_per_s))) AS runs_equal
FROM reports p LEFT JOIN results s ON p.folder IN (s.result_path, s.report_folder)
ORDER BY result NULLS LAST, p.path

-- fio's bandwidth logs (view fio_series, KiB/s) of the given output files, averaged into buckets of ? ms per job and
-- direction, then summed over the jobs of a file: one row per file, direction and bucket (t_s: its start, seconds
-- since fio started). Only buckets wholly inside the job's runtime. Parameters: bucket ms, bucket ms, source ids,
-- bucket ms, bucket ms.
WITH per_job AS (
    SELECT j.source_id, j.job_index, f.direction AS phase, floor(f.t_ms / ?) * ? / 1000 AS t_s,
           avg(f.value) AS kib_s, count(*) AS log_entries
    FROM fio_jobs j
    JOIN fio_series f ON f.job_id = j.job_id AND f.kind = 'bw'
    WHERE list_contains(?, j.source_id) AND f.t_ms < floor(j.runtime_s * 1000 / ?) * ?
    GROUP BY ALL
)
SELECT source_id, phase, t_s, round(sum(kib_s) / 1024, 6) AS mib_s,
       sum(log_entries) AS log_entries, source_id AS log_source_id
FROM per_job GROUP BY source_id, phase, t_s

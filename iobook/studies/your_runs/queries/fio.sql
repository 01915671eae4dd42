-- One row per fio result (job and direction) per file, no copy of a log stored already; the jobs of one group with
-- equal options in a file summed (fio without group_reporting prints each of numjobs' jobs): bandwidth (MiB/s:
-- the second parameter is bytes a MiB), IOPS, the mean total latency and the completion-latency percentiles (ms),
-- `entries` the jobs summed. Jobs that reported an error are left out. `manifest`: a collector's labels of the
-- file, but those saying how a step ran (the first parameter's keys).
WITH manifest AS (
    SELECT source_id, string_agg(DISTINCT key || '=' || value, ', ' ORDER BY key || '=' || value) AS manifest
    FROM run_labels WHERE source_id IS NOT NULL AND NOT list_contains(?, key) GROUP BY source_id
)
SELECT j.source_id, j.groupid, j.rw, j.bs, j.iodepth, j.numjobs, j.direct, j.ioengine, j.size, j.options,
       j.unstated_key, j.operations, m.manifest, io.direction, count(*) AS entries, sum(io.bw_bytes_s) / ? AS bw_mib_s,
       sum(io.iops) AS ops_s, max(io.lat_mean_ns) / 1e6 AS lat_ms, max(io.lat_p50_ns) / 1e6 AS p50_ms,
       max(io.lat_p99_ns) / 1e6 AS p99_ms, max(io.lat_p999_ns) / 1e6 AS p999_ms,
       max(io.lat_p9999_ns) / 1e6 AS p9999_ms
FROM fio_jobs j JOIN fio_io io USING (job_id) LEFT JOIN manifest m USING (source_id)
WHERE coalesce(j.error, 0) = 0 AND io.bw_bytes_s > 0
  AND j.source_id NOT IN (SELECT source_id FROM duplicate_logs)
GROUP BY ALL
ORDER BY j.source_id, j.groupid, io.direction

-- One row per fio run: the jobs one invocation ran as one group with one name (numjobs' clones, which fio prints
-- one by one without group_reporting: processes of one run, never runs of their own), that did I/O without error,
-- dated by fio's own timestamp, and no copy of a log stored already. Its job name and settings (the options that
-- make two runs the same workload and the target it reads or writes; runtime, log settings, ... may change along a
-- history and are reported as what changed), of which repeated_runs makes its workload key, total bandwidth over its
-- jobs and directions (B/s), the longest completion-latency p99 of any job and direction (ns), and the slowest job's
-- bandwidth over the median job's (NULL for one job).
WITH per_job AS (
    SELECT j.job_id, j.source_id, j.groupid, j.started, j.version, j.options, j.jobname, j.rw, j.bs, j.iodepth,
           j.numjobs, j.direct, j.ioengine, j.size, sum(io.bw_bytes_s) AS bw_bytes_s, max(io.lat_p99_ns) AS p99_ns
    FROM fio_jobs j JOIN fio_io io USING (job_id)
    WHERE j.started IS NOT NULL AND j.error = 0
      AND j.source_id NOT IN (SELECT source_id FROM duplicate_logs)
    GROUP BY ALL
)
SELECT min(p.job_id) AS job_id, list(p.job_id ORDER BY p.job_id) AS job_ids, count(*) AS jobs, p.source_id,
       p.started, p.version, p.options, s.path, p.jobname,
       concat_ws(' ', 'rw=' || p.rw, 'bs=' || p.bs, 'iodepth=' || p.iodepth, 'numjobs=' || p.numjobs,
                 'direct=' || p.direct, 'ioengine=' || p.ioengine, 'size=' || p.size,
                 'directory=' || json_extract_string(p.options, '$.directory'),
                 'filename=' || json_extract_string(p.options, '$.filename'),
                 'filename_format=' || json_extract_string(p.options, '$.filename_format')) AS settings,
       sum(p.bw_bytes_s) AS bw_bytes_s, max(p.p99_ns) AS p99_ns,
       CASE WHEN count(*) > 1 THEN min(p.bw_bytes_s) / median(p.bw_bytes_s) END AS slowest_job
FROM per_job p JOIN sources s USING (source_id)
GROUP BY p.source_id, p.groupid, p.started, p.version, p.options, s.path, p.jobname, p.rw, p.bs, p.iodepth,
         p.numjobs, p.direct, p.ioengine, p.size
ORDER BY p.started, job_id;

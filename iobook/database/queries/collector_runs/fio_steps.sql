-- Per fio job file given: bandwidth, bytes, runtime and fio's own CPU share per direction (parameter: source ids).
-- cpu_runtime_s: the job's own run time, of which fio's usr_cpu and sys_cpu are percentages (a verify read's job
-- outlasts its read direction's runtime_s); the direction's where fio's output does not state it.
SELECT j.source_id, io.direction AS phase, io.bw_bytes_s, io.io_bytes, j.runtime_s,
       coalesce(j.job_runtime_s, j.runtime_s) AS cpu_runtime_s, j.usr_cpu_pct, j.sys_cpu_pct
FROM fio_jobs j JOIN fio_io io USING (job_id)
WHERE list_contains(?, j.source_id) AND io.bw_bytes_s > 0

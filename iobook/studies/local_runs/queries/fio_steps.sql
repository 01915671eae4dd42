-- Per fio job file given: bandwidth, bytes, runtime and fio's own CPU share per direction (parameter: source ids).
SELECT j.source_id, io.direction AS phase, io.bw_bytes_s, io.io_bytes, j.runtime_s,
       j.usr_cpu_pct, j.sys_cpu_pct
FROM fio_jobs j JOIN fio_io io USING (job_id)
WHERE list_contains(?, j.source_id) AND io.bw_bytes_s > 0

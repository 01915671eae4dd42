-- fio's mean completion latency (ms) per output file (?: source ids) and direction, over the jobs that moved data.
SELECT j.source_id, io.direction AS phase, avg(io.clat_mean_ns) / 1e6 AS clat_mean_ms
FROM fio_jobs j JOIN fio_io io USING (job_id)
WHERE list_contains(?, j.source_id) AND io.bw_bytes_s > 0
GROUP BY ALL

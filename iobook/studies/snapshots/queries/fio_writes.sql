-- fio's write result of each step file given (source ids): writes (bytes over the write size, the first
-- parameter), IOPS, completion latency mean and percentiles (µs) and fio's error.
SELECT j.source_id, io.io_bytes / ? AS writes, io.iops,
       io.clat_mean_ns / 1e3 AS clat_mean_us, io.lat_p50_ns / 1e3 AS clat_p50_us,
       io.lat_p99_ns / 1e3 AS clat_p99_us, io.lat_p999_ns / 1e3 AS clat_p999_us, j.error
FROM fio_jobs j
JOIN fio_io io USING (job_id)
WHERE io.direction = 'write' AND list_contains(?, j.source_id)

-- The bw log samples of the given fio jobs (?: their job_ids), in time order.
SELECT job_id, t_ms, value FROM fio_series
WHERE kind = 'bw' AND job_id IN (SELECT unnest(?))
ORDER BY job_id, t_ms;

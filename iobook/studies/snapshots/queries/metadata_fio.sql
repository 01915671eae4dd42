-- fio's group-reported result of each metadata step (filecreate, filestat, filedelete): files per second over
-- the longer job's runtime, for the step files given (their source ids).
SELECT j.source_id, j.jobname AS fio_engine, j.numjobs, j.error, io.iops AS files_per_s, io.runtime_ms
FROM fio_jobs j
JOIN fio_io io USING (job_id)
WHERE list_contains(?, j.source_id)

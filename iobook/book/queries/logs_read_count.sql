-- How many files were read (status ok).
SELECT count(*) FROM sources WHERE status = 'ok'

-- The files of the data not read whole, each with its reason and the 1-based line where reading stopped: not read
-- (could not be read: the gate cannot pass on them), skipped (not a log format iobook reads, binary, a link leading
-- out of the data) and read in part (cut short, bytes that are not UTF-8: the lines before were loaded).
SELECT path,
       CASE status WHEN 'error' THEN 'not read' WHEN 'skipped' THEN 'skipped' ELSE 'read in part' END AS outcome,
       error AS reason, error_line AS line
FROM sources
WHERE status IN ('error', 'skipped') OR (status = 'ok' AND error IS NOT NULL)
ORDER BY outcome, path

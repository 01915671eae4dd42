-- Why files were skipped (not a log format iobook reads, binary, a symlink leading out...), with counts.
SELECT coalesce(error, '–') AS reason, count(*) AS files
FROM sources
WHERE status = 'skipped'
GROUP BY ALL
ORDER BY files DESC, reason

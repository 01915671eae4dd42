-- Files that could not be read: path, format, the reason and the 1-based line where reading stopped (NULL when the
-- parser could not say).
SELECT path, format, error AS reason, error_line AS line
FROM sources
WHERE status = 'error'
ORDER BY path

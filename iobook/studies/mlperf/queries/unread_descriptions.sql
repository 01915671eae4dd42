-- System descriptions ingest could not read (systems/<system>.json that is not JSON), with the reason and line.
SELECT path, error, error_line
FROM sources
WHERE format = ? AND status = 'error'
ORDER BY path

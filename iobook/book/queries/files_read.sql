-- (path, sha256, status) of every file in the folders ingested, of every tool or of the tools given (parameters:
-- whether every tool, the tools' names), in path order.
SELECT path, sha256, status FROM sources
WHERE status <> 'gone' AND (? OR list_contains(?, tool))
ORDER BY path

-- The files behind a figure: path, format, tool version and the first 12 hex digits of its sha256 (parameter: source
-- ids), in path order.
SELECT path, format, tool_version, left(sha256, 12) AS sha256
FROM sources WHERE list_contains(?, source_id) ORDER BY path

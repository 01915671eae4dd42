-- Every shell script and INI file ingest saw, with its hash, in path order.
SELECT path, sha256 FROM sources WHERE status <> 'gone' AND regexp_matches(path, '\.(sh|ini)$') ORDER BY path

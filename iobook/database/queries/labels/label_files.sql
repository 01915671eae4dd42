-- (path, sha256) of every file of the names given ingest saw in the folders, the deepest first (parameter: the file
-- names, lower case: labels.yml, setup.yml).
SELECT path, sha256 FROM sources WHERE status <> 'gone'
AND list_contains(?, lower(regexp_extract(path, '[^/]*$'))) ORDER BY length(path) DESC, path

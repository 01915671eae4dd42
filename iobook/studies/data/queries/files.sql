-- Every file of this build (not those gone from the folders ingested): path, detected format, outcome, size.
SELECT path, coalesce(format, '–') AS format, status, bytes AS "size (bytes)"
FROM sources
WHERE status <> 'gone'

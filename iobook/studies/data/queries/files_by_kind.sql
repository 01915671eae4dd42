-- Files of this build and their size per tool, detected format and outcome; '–' where ingest detected no format.
-- Files gone from the folders ingested (a previous build's) are not among them. Parameter: bytes per MiB.
SELECT coalesce(tool, '–') AS tool, coalesce(format, '–') AS format, status,
       count(*) AS files, sum(bytes) / ? AS "size (MiB)"
FROM sources
WHERE status <> 'gone'
GROUP BY ALL
ORDER BY tool, format, status

-- The path of every file in the folders ingested.
SELECT path FROM sources WHERE status <> 'gone'

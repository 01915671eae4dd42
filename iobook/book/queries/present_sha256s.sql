-- The sha256 of every file in the folders ingested, in order (the data's digest on the landing page).
SELECT sha256 FROM sources WHERE status <> 'gone' ORDER BY sha256

-- Files per outcome: ok, error, skipped, gone.
SELECT status, count(*) AS files FROM sources GROUP BY status

-- Files by status, and whether an ok file was read only in part (its error kept: truncated).
SELECT status, status = 'ok' AND error IS NOT NULL, count(*) FROM sources GROUP BY ALL

-- Runs whose printed score is reproduced neither from the summary nor from the phase logs, or cannot be compared
-- (view io500_score_mismatches), with the reason ingest found. copy_of: for a copy of a run (the same phase values
-- stored twice, io500_duplicate_runs' fingerprint), the run counted in its place; NULL for a run counted.
SELECT r.run_key, r.institution, r.system, m.score, m.score_from_logs, m.reported_score_native, m.reason,
       c.run_key AS copy_of
FROM io500_score_mismatches m
JOIN io500_runs r USING (run_id)
LEFT JOIN io500_runs c ON NOT r.counted AND c.fingerprint = r.fingerprint AND c.counted
ORDER BY r.run_key, r.run_id

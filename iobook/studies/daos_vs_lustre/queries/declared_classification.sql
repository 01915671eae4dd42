-- How submitters classified their systems in io500_info lines (system_classification: production, Validation/CI,
-- ...) and whether they declared a 10-node challenge run: runs per key and value as printed.
SELECT key, value, count(DISTINCT run_id) AS runs FROM io500_system_info
WHERE key IN ('system_classification', '10nodechallenge', 'include-in-10node', 'include-in-io500')
GROUP BY key, value ORDER BY key, runs DESC, value

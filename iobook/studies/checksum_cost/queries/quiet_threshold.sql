-- The collector's quiet check: the busy share of all CPUs (%) at or above which it found the machine under load,
-- the lowest over the runs (manifest facts.load_policy.quiet_below_busy_pct; NULL for runs made before the check).
SELECT min(CAST(value AS DOUBLE)) AS quiet_below_busy_pct
FROM run_facts
WHERE list_contains(?, run_id) AND key = 'facts.load_policy.quiet_below_busy_pct'

-- The copy-on-write part's snapshot deletes of each run: how many, and how long the longest took to return.
SELECT run_id, count(*) AS deletes, max(seconds) AS longest_delete_s
FROM run_steps
WHERE list_contains(?, run_id) AND starts_with(name, 'delete-cow-snap-')
GROUP BY run_id

-- When each step of the runs started.
SELECT run_id, step_index, started_utc
FROM run_steps
WHERE list_contains(?, run_id)

-- The `btrfs subvolume sync` of each run's recovery part: when it started and how long it waited for the cleaner.
SELECT run_id, step_index, started_utc, seconds, exit_code
FROM run_steps
WHERE list_contains(?, run_id) AND name = 'recovery-subvolume-sync'
ORDER BY run_id

-- The snapshot create and delete commands of the runs, with how long each took to return.
SELECT run_id, step_index, name AS step, seconds, exit_code
FROM run_steps
WHERE list_contains(?, run_id)
  AND (starts_with(command, 'btrfs subvolume snapshot ') OR starts_with(command, 'btrfs subvolume delete '))
ORDER BY run_id, step_index

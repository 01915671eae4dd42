-- The subvolumes each run created (`btrfs subvolume create <path>`): the subvolume's name, the folder it was
-- created in, and the run's target (the btrfs it mounted: folder and device).
SELECT s.run_id, s.step_index,
       regexp_extract(s.command, '[^/]*$') AS subvolume,
       regexp_replace(s.command, '^btrfs subvolume create (.*)/[^/]*$', '\1') AS parent,
       r.target_dir, r.target_device
FROM run_steps s
JOIN runs r USING (run_id)
WHERE list_contains(?, s.run_id) AND starts_with(s.command, 'btrfs subvolume create ')
ORDER BY s.run_id, s.step_index

-- Per run (?: run ids): when the last transaction commit the collector forced (`btrfs filesystem sync`) before the
-- recovery part's `btrfs subvolume sync` finished, and the btrfs mount's options (manifest target.mount_options: a
-- commit=<seconds> there sets the periodic commit's interval).
SELECT s.run_id, max(c.finished_utc) AS last_commit_utc,
       any_value(f.value) AS mount_options
FROM run_steps s
JOIN run_steps c ON c.run_id = s.run_id AND c.step_index < s.step_index
                AND starts_with(c.command, 'btrfs filesystem sync ')
LEFT JOIN run_facts f ON f.run_id = s.run_id AND f.key = 'target.mount_options'
WHERE list_contains(?, s.run_id) AND s.name = 'recovery-subvolume-sync'
GROUP BY s.run_id
ORDER BY s.run_id

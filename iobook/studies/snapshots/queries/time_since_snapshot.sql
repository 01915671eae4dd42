-- For every labelled fio step of the runs but the recovery part's (which runs after the deletes): the seconds
-- from the moment the newest snapshot's `btrfs subvolume snapshot` returned to the step's start (NULL before the
-- first snapshot).
WITH snaps AS (
    SELECT run_id, step_index, finished_utc FROM run_steps
    WHERE list_contains(?, run_id) AND starts_with(command, 'btrfs subvolume snapshot ')
),
fio AS (
    SELECT DISTINCT s.run_id, s.step_index, s.name AS step, s.started_utc
    FROM run_steps s JOIN run_labels l USING (run_id, step_index)
    WHERE list_contains(?, s.run_id) AND ends_with(l.file, '.fio.json')
      AND (s.run_id, s.step_index) NOT IN (SELECT (run_id, step_index) FROM run_labels
                                           WHERE key = 'part' AND value = 'recovery')
)
SELECT f.run_id, f.step_index, f.step,
       epoch(f.started_utc) - epoch(max(n.finished_utc)) AS seconds_since_snapshot
FROM fio f LEFT JOIN snaps n ON n.run_id = f.run_id AND n.step_index < f.step_index
GROUP BY f.run_id, f.step_index, f.step, f.started_utc
ORDER BY f.run_id, f.step_index

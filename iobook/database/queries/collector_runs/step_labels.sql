-- Each output file's manifest labels, one row per label, of the runs given (parameters: run ids, the files' suffix).
SELECT l.run_id, l.step_index, s.name AS step, s.seconds AS step_s, l.file, l.source_id, l.key, l.value
FROM run_labels l
JOIN run_steps s USING (run_id, step_index)
WHERE list_contains(?, l.run_id) AND ends_with(l.file, ?) AND l.source_id IS NOT NULL

-- Per run and experiment of one study: its files measured and measured again at the end (the drift check), its highest repetition and whether its manifest records a stopping rule (parameters: the experiment's label key, the default experiment, the end-baseline label, the study).
WITH files AS (
    SELECT run_id, file,
           coalesce(any_value(value) FILTER (key = ?), ?) AS experiment,
           bool_or(key = ?) AS end_baseline,
           max(TRY_CAST(value AS INTEGER)) FILTER (key = 'repetition') AS repetition
    FROM run_labels WHERE source_id IS NOT NULL GROUP BY run_id, file
), rule AS (
    SELECT run_id, bool_or(key LIKE 'facts.%decision.rule') AS stopping_rule FROM run_facts GROUP BY run_id
)
SELECT regexp_extract(r.run_dir, '[^/]*$') AS run_folder, r.run_id, f.experiment, r.started_utc,
       coalesce(any_value(u.stopping_rule), false) AS stopping_rule,
       count(*) FILTER (NOT f.end_baseline) AS files, count(*) FILTER (f.end_baseline) AS end_files,
       max(f.repetition) FILTER (NOT f.end_baseline) AS repetitions
FROM runs r JOIN files f USING (run_id) LEFT JOIN rule u USING (run_id)
WHERE r.study = ?
GROUP BY ALL
ORDER BY f.experiment, r.started_utc, run_folder

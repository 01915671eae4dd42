-- fio and btrfs versions and the prefill file count of each run.
SELECT run_id,
       any_value(value) FILTER (key = 'tools.fio') AS fio,
       any_value(value) FILTER (key = 'tools.btrfs') AS btrfs,
       CAST(any_value(value) FILTER (key = 'facts.prefill.files') AS INTEGER) AS "prefilled files"
FROM run_facts
WHERE list_contains(?, run_id)
GROUP BY run_id
ORDER BY run_id

-- Each IO500 run's folder and its start (else its result folder), in run order.
SELECT run_id, path, coalesce(started, result_dir) FROM io500_run_info ORDER BY run_id

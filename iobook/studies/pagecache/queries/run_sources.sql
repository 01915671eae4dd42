-- Every ingested file of the runs (?: run ids; view run_sources): manifests, fio output and logs, monitors.
SELECT source_id FROM run_sources WHERE list_contains(?, run_id) ORDER BY source_id

-- Every file of these runs (run ids ?).
SELECT DISTINCT source_id FROM io500_run_files WHERE list_contains(?, run_id) ORDER BY source_id

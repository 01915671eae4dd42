-- The Storage Scale listings (mmlsconfig, mmlscluster, mmlsfs) linked to the runs (?: run ids).
SELECT run_id, source_id, format
FROM io500_run_system_files
WHERE list_contains(?, run_id) AND format LIKE 'gpfs-%'

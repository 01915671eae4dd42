-- The GPFS cluster names (mmlscluster) in the system files of the runs (?: run ids).
SELECT DISTINCT x.run_id, n.cluster
FROM io500_run_system_files x JOIN gpfs_nodes n USING (source_id)
WHERE list_contains(?, x.run_id)

-- The node names of the Storage Scale listings (mmlscluster) beside each IO500 run.
SELECT x.run_id, list(DISTINCT n.daemon_node) FROM io500_run_system_files x JOIN gpfs_nodes n USING (source_id)
GROUP BY x.run_id

-- Each IO500 run's Storage Scale minReleaseLevel, from the mmlsconfig listing beside it, and which file says so.
SELECT x.run_id, min(c.value), min(x.path) FROM io500_run_system_files x JOIN gpfs_config c USING (source_id)
WHERE c.key = 'minReleaseLevel' GROUP BY x.run_id

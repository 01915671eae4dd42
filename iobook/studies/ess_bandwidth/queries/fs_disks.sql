-- The disks (mmlsfs -d) of every file system listed in the system files of the runs (?: run ids), with their
-- mount point, recovery group and log group.
SELECT DISTINCT x.run_id, d.source_id, d.mount_point, d.disk, d.recovery_group, d.log_group
FROM io500_run_system_files x JOIN gpfs_fs_disks d USING (source_id)
WHERE list_contains(?, x.run_id) AND d.mount_point IS NOT NULL

-- Block size (-B) and format version (-V) of every file system (mmlsfs) listed in the system files of the runs
-- (?: run ids), with the file system's mount point (from its disk listing in the same file).
SELECT DISTINCT x.run_id, a.flag, a.value, d.mount_point
FROM io500_run_system_files x JOIN gpfs_fs_attributes a USING (source_id)
JOIN (SELECT DISTINCT source_id, listing, mount_point FROM gpfs_fs_disks) d USING (source_id, listing)
WHERE list_contains(?, x.run_id) AND a.flag IN ('-B', '-V')

-- Every Storage Scale mmlsconfig setting whose name holds "checksum", with the IO500 run its listing describes
-- (io500_run_system_files), and `raid`: the listing sets Storage Scale RAID settings (nsdRAID*) beside the checksum
-- one (?: nsdRAIDClientOnlyChecksum), so the system has declustered RAID. A listing that sets no checksum setting
-- appears once with an empty key.
WITH listed AS (
    SELECT DISTINCT x.run_id, x.source_id FROM io500_run_system_files x WHERE x.format = 'gpfs-mmlsconfig'
), raid AS (
    SELECT l.source_id, count(c.key) FILTER (starts_with(lower(c.key), 'nsdraid')
                                            AND lower(c.key) <> lower(?)) > 0 AS raid
    FROM listed l LEFT JOIN gpfs_config c USING (source_id) GROUP BY l.source_id
)
SELECT r.submission, r.institution, r.system, r.filesystem, r.year, l.source_id, d.raid,
       c.scope, c.key, c.value, c.line
FROM listed l JOIN io500_runs r USING (run_id) JOIN raid d USING (source_id)
LEFT JOIN gpfs_config c ON c.source_id = l.source_id AND contains(lower(c.key), 'checksum')
ORDER BY r.submission, c.key, c.scope = 'common' DESC, c.line

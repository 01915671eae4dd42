-- IBM Storage Scale (GPFS) listings saved beside benchmark results (iobook/parsers/gpfs.py).
-- Values are text as mmlsconfig printed them ('48G', '128k', '324379307212').

-- One row per setting line of mmlsconfig. scope: the node classes or nodes of the [..] line above it,
-- 'common' for cluster-wide settings. A key may appear under several scopes with different values.
CREATE OR REPLACE VIEW gpfs_config AS
SELECT c.source_id, s.path, c.cluster, c.scope, c.key, c.value, c.line
FROM raw_gpfs_config AS c JOIN sources AS s USING (source_id);

-- One row per node of mmlscluster; the designation's words say which roles the node holds.
CREATE OR REPLACE VIEW gpfs_nodes AS
SELECT n.source_id, s.path, n.cluster, n.node_number, n.daemon_node, n.ip_address, n.admin_node, n.designation,
       list_contains(string_split(n.designation, '-'), 'quorum') AS quorum,
       list_contains(string_split(n.designation, '-'), 'manager') AS manager
FROM raw_gpfs_nodes AS n JOIN sources AS s USING (source_id);

CREATE OR REPLACE VIEW gpfs_filesystems AS
SELECT f.source_id, s.path, f.cluster, f.device
FROM raw_gpfs_filesystems AS f JOIN sources AS s USING (source_id);

-- One row per attribute line of mmlsfs (flag, value and description as printed; a line continuing the one
-- above repeats its flag). listing: which mmlsfs listing of the file (`mmlsfs fs` and `mmlsfs fs --snc`).
CREATE OR REPLACE VIEW gpfs_fs_attributes AS
SELECT a.source_id, s.path, a.listing, a.flag, a.value, a.description, a.line
FROM raw_gpfs_fs_attributes AS a JOIN sources AS s USING (source_id);

-- One row per disk (NSD) of a file system as mmlsfs -d lists it, with the listing's mount point (-T).
-- Vdisk NSDs made by mmvdisk are named <recovery group>LG<nnn>VS<nnn>: recovery_group, log_group and
-- vdisk_set are read from that name (null for a disk named otherwise).
CREATE OR REPLACE VIEW gpfs_fs_disks AS
SELECT d.source_id, s.path, d.listing, t.value AS mount_point, d.disk,
       nullif(regexp_extract(d.disk, '^(.+)LG[0-9]+VS[0-9]+$', 1), '') AS recovery_group,
       nullif(regexp_extract(d.disk, '(LG[0-9]+)VS[0-9]+$', 1), '') AS log_group,
       nullif(regexp_extract(d.disk, 'LG[0-9]+(VS[0-9]+)$', 1), '') AS vdisk_set, d.line
FROM raw_gpfs_fs_disks AS d JOIN sources AS s USING (source_id)
LEFT JOIN raw_gpfs_fs_attributes AS t ON t.source_id = d.source_id AND t.listing = d.listing AND t.flag = '-T'

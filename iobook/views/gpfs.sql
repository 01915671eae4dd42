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
FROM raw_gpfs_filesystems AS f JOIN sources AS s USING (source_id)

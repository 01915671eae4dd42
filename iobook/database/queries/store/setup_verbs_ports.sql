-- The verbsPorts lines of the Storage Scale configuration listings (mmlsconfig) beside each IO500 run: the RDMA ports
-- each node class uses (iobook.database.client_bounds reads a client class's, else the common value's).
SELECT x.run_id, c.scope, c.value, c.line, regexp_extract(c.path, '[^/]*$') AS file
FROM io500_run_system_files x JOIN gpfs_config c USING (source_id)
WHERE c.key = 'verbsPorts'
ORDER BY x.run_id, c.line

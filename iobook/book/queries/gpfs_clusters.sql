-- Every Storage Scale cluster name.
SELECT cluster FROM gpfs_nodes UNION SELECT cluster FROM gpfs_config UNION SELECT cluster FROM gpfs_filesystems

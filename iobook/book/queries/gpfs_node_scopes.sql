-- Every mmlsconfig scope but the common one (node names and node classes, comma-separated).
SELECT DISTINCT scope FROM gpfs_config WHERE scope <> 'common'

-- Every value of Storage Scale's subnets setting (10.2.1.0/<cluster>).
SELECT DISTINCT value FROM gpfs_config WHERE key = 'subnets'

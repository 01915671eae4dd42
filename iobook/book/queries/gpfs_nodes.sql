-- Every Storage Scale node: its daemon and admin node names and its IP address.
SELECT DISTINCT daemon_node, admin_node, ip_address FROM gpfs_nodes

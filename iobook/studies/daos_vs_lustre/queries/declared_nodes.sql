-- Every run with the client and data-server nodes its submitter declared in io500_info lines (num_client_nodes or
-- client_nodes; num_data_server_nodes or ds_nodes); no log counts data servers.
WITH declared AS (
    SELECT run_id,
           max(TRY_CAST(value AS INTEGER)) FILTER (WHERE key IN ('num_client_nodes', 'client_nodes')) AS client_nodes,
           max(TRY_CAST(value AS INTEGER)) FILTER (WHERE key IN ('num_data_server_nodes', 'ds_nodes')) AS data_servers
    FROM io500_system_info GROUP BY run_id)
SELECT r.run_id, d.client_nodes AS declared_client_nodes, d.data_servers
FROM io500_runs r LEFT JOIN declared d USING (run_id)
ORDER BY r.run_id

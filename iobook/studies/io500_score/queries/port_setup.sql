-- What the setup record (io500_run_setup) of each run counted once says of its client links' rate and its data
-- servers' network, each value with its source: one client port's rate by client_bounds.port_rate.
SELECT s.run_id, s.field, s.value, s.source
FROM io500_run_setup s JOIN io500_runs r USING (run_id)
WHERE r.counted AND s.field IN ('client_link_gbit_s', 'server_link_gbit_s', 'server_network')

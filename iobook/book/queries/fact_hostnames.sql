-- The host names the runs' facts state.
SELECT DISTINCT value FROM run_facts WHERE key LIKE '%hostname%' OR key LIKE '%fqdn%'

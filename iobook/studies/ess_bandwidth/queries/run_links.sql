-- Each run's client links and their rate as its setup record states them (the run's files, a setup.yml, or the
-- talk's printed words in the row data/reference/client_links.csv names) for the runs (?: run ids).
SELECT run_id, client_links AS links_per_client, client_link_gbit_s AS link_gbit_s
FROM setups
WHERE list_contains(?, run_id)

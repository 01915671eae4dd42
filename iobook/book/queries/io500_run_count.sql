-- How many IO500 runs the database holds.
SELECT count(*) FROM io500_runs

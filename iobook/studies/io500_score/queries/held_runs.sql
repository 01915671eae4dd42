-- Which of the run keys in the list parameter the database holds.
SELECT run_key FROM io500_runs WHERE list_contains(?, run_key)

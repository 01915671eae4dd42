-- Each IO500 run counted once, with the path of its result file (io500_runs.own_folder finds its folder from it).
SELECT run_id, path FROM io500_runs WHERE counted ORDER BY run_id

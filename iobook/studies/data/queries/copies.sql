-- IO500 runs and fio, IOR or mdtest logs stored again (io500_duplicate_runs, duplicate_logs): each counted once.
SELECT (SELECT count(*) FROM io500_duplicate_runs) + (SELECT count(*) FROM duplicate_logs) AS copies

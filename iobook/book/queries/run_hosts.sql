-- The hosts the runs name.
SELECT DISTINCT host FROM runs

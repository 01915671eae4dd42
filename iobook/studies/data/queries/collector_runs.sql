-- Collector runs (a folder with the manifest.json a collector wrote) per study.
SELECT study, count(*) AS runs FROM runs GROUP BY study ORDER BY study

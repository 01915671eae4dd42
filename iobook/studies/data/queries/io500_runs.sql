-- IO500 runs, each once: a copy stored again is not counted (io500_runs.counted).
SELECT count(*) FILTER (WHERE counted) AS runs FROM io500_runs

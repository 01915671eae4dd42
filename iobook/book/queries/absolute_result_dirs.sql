-- The absolute result folders IO500 runs state.
SELECT DISTINCT result_dir FROM io500_runs WHERE result_dir LIKE '/%'

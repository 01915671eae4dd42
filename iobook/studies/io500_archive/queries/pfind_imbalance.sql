-- One row per pfind CSV of a counted IO500 run (a run stored twice counts once): how evenly its find phase's work
-- fell on the ranks (Kunkel et al., arXiv 2605.02194: parallel-find load imbalance). The C app writes find.csv
-- (find-easy.csv and find-hard.csv in extended mode) into its results folder, one row per rank; it goes to the
-- run whose summary files share that folder and that has the phase the file is named after (io500_phase_log_links'
-- rule; a pfind CSV has no start time, and no folder of the archive holds a find CSV and two runs).
-- Two counts per rank, as io500's phase_find.c prints pfind's results: `checked`, the directory entries the rank
-- read (pfind's checked_dirents), and `total`, the files it scanned (total_files; IO500's find rate is their sum
-- over the run time). Per count: max / mean over ranks (1 is even) and the busiest rank's share of the sum.
-- ranks_add_up: the ranks' totals add up to pfind's own total (rate x runtime, each printed to 6 decimals). Where
-- they do not, the rows are not each rank's own and no share is computed: early C apps wrote rank 0's row alone,
-- one printed the run's total on every rank. checked is NULL where no rank reports it (some pfind versions print
-- 0 on every rank).
-- ranks_checking_none: ranks that read no directory entry (they may still scan files that others' reads listed;
-- NULL where checked is); idle_ranks: ranks that did neither.
-- A failed phase is no row: ranks that reported errors (pfind_runs.failed).
WITH ranks AS (
    SELECT source_id, sum(total) AS total, max(total) AS total_max, avg(total) AS total_mean,
           max(checked) AS checked_max, avg(checked) AS checked_mean,
           count(*) FILTER (WHERE checked = 0) AS ranks_checking_none,
           count(*) FILTER (WHERE checked = 0 AND total = 0) AS idle_ranks
    FROM raw_pfind_ranks GROUP BY source_id
),
csvs AS (
    SELECT p.source_id, p.path, p.runtime_s, p.ranks, nullif(p.checked, 0) AS checked, k.total, k.total_max,
           k.total_mean, k.checked_max, k.checked_mean, k.ranks_checking_none, k.idle_ranks,
           abs(k.total - p.rate * p.runtime_s) <= 1e-4 * k.total AS ranks_add_up,
           regexp_replace(p.path, '[^/]*$', '') AS folder,
           regexp_replace(regexp_extract(p.path, '[^/]*$'), '\.csv$', '') AS phase
    FROM pfind_runs p JOIN ranks k USING (source_id)
    WHERE NOT p.failed
),
run_folders AS (
    SELECT DISTINCT run_id, regexp_replace(path, '[^/]*$', '') AS folder FROM io500_run_files
)
SELECT r.run_id, r.run_key, g.machine, g.family, c.phase, c.ranks, c.runtime_s, c.ranks_add_up,
       c.checked,
       CASE WHEN c.ranks_add_up THEN c.checked_max / c.checked_mean END AS checked_imbalance,
       CASE WHEN c.ranks_add_up THEN c.checked_max / c.checked END AS busiest_checked_share,
       c.total,
       CASE WHEN c.ranks_add_up THEN c.total_max / c.total_mean END AS total_imbalance,
       CASE WHEN c.ranks_add_up THEN c.total_max / c.total END AS busiest_total_share,
       CASE WHEN c.checked > 0 THEN c.ranks_checking_none END AS ranks_checking_none, c.idle_ranks, p.valid,
       c.source_id, c.path AS log_path
FROM csvs c
JOIN run_folders f USING (folder)
JOIN io500_phases p ON p.run_id = f.run_id AND p.phase = c.phase
JOIN io500_runs r ON r.run_id = f.run_id
LEFT JOIN setups g ON g.run_id = f.run_id
WHERE r.counted
ORDER BY r.run_key, c.phase;

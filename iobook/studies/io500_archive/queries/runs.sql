-- The IO500 archive as a data set: one row per counted run (io500_runs.counted: a copy or a repeat listing of one
-- run counts once), the list it was submitted to, what it ran on (machine, family, benchmark generation), its
-- recomputed score and sub-scores, its client nodes and its validity flags. A run whose files name no machine
-- (no institution or system) is its own.
-- The list (setups.list, its source in io500_run_setup): the IO500 site's record for submissions 1-555 (a run filed
-- again later keeps the list of its first listing), else inferred from the archive's year folder and the run's
-- start date. A user's own run, or one without a start date, has no list and is counted apart. The values the list
-- published (setups.list_*: on the one run of a submission they belong to, iobook/database/io500_lists.py) stand
-- beside the run's own, with how they relate (list_check).
WITH started AS (
    SELECT run_id, COALESCE(TRY_STRPTIME(started, '%Y-%m-%d %H:%M:%S'), TRY_STRPTIME(started, '%Y.%m.%d-%H.%M.%S'),
                            TRY_STRPTIME(started, '%Y-%m-%d')) AS started_at
    FROM io500_runs)
SELECT r.run_id, r.submission, COALESCE(s.machine, r.run_key) AS machine, s.family, s.era, s.benchmark, s.client_nodes, r.year, t.started_at,
       s.list, s.list_score, s.list_bw_gib_s, s.list_md_kiops, s.list_check,
       c.score, c.bw_gib_s, c.md_kiops, c.valid,
       (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f WHERE f.run_id = r.run_id)
           AS validity_flags
FROM io500_runs r JOIN setups s USING (run_id) JOIN started t USING (run_id) JOIN io500_run_scores c USING (run_id)
WHERE r.counted
ORDER BY r.year, t.started_at, r.run_id

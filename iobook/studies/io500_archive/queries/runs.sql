-- The IO500 archive as a data set: one row per counted run (io500_runs.counted: a copy or a repeat listing of one
-- run counts once), the list it was submitted to, what it ran on (machine, family, benchmark generation), its
-- recomputed score and sub-scores, its client nodes and its validity flags. A run whose files name no machine
-- (no institution or system) is its own.
-- The list: the archive's year folder is the list's year; the run's start date says which of the year's two lists.
-- ISC's deadlines fall in May-June and SC's in October-November, so a run started in the folder's first half-year
-- (or the year before) went to ISC, one started from July to SC. The year is the archive's only where the run
-- is an archive submission: in its folders, or copied out of them and known by its phase values (io500_runs'
-- attributed_by: 'archive folders', "the IO500 archive's listing ..."). A user's own run (its year is its own
-- start's), or one without a start date, has no list and is counted apart.
WITH started AS (
    SELECT run_id, COALESCE(TRY_STRPTIME(started, '%Y-%m-%d %H:%M:%S'), TRY_STRPTIME(started, '%Y.%m.%d-%H.%M.%S'),
                            TRY_STRPTIME(started, '%Y-%m-%d')) AS started_at
    FROM io500_runs)
SELECT r.run_id, r.submission, COALESCE(s.machine, r.run_key) AS machine, s.family, s.era, s.benchmark, s.client_nodes, r.year, t.started_at,
       CASE WHEN NOT (r.attributed_by LIKE 'archive folders%' OR r.attributed_by LIKE 'the IO500 archive''s listing%')
                 OR r.year IS NULL OR t.started_at IS NULL THEN NULL
            WHEN year(t.started_at) < r.year OR month(t.started_at) <= 6 THEN 'ISC' || right(r.year::VARCHAR, 2)
            ELSE 'SC' || right(r.year::VARCHAR, 2) END AS list,
       c.score, c.bw_gib_s, c.md_kiops, c.valid,
       (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f WHERE f.run_id = r.run_id)
           AS validity_flags
FROM io500_runs r JOIN setups s USING (run_id) JOIN started t USING (run_id) JOIN io500_run_scores c USING (run_id)
WHERE r.counted
ORDER BY r.year, t.started_at, r.run_id

-- One row per counted IO500 run (a run stored twice counts once) and write phase whose own log states where its
-- ranks stood at the stonewall: IO500 writes until a deadline, then every rank goes on until it has done as many
-- transfers or items as the rank furthest ahead ("wear-down"); the ranks' spread at the deadline shows the
-- stragglers (Kunkel et al., arXiv 2605.02194).
-- - IOR (ior-easy-write, ior-hard-write): transfers per rank at the stonewall ("stonewalling pairs accessed min:
--   ... max: ... -- min data: ... mean data: ... GiB time: ...s") against its deadline (-D; 0 is none: the pairs
--   are then every rank's whole block, no row). IOR prints no mean count: the mean is its mean data (GiB, printed
--   to 0.1) over the transfer size, where that print is precise to 1 %. IOR's stonewall clock starts with the transfers, so the wear-down is the part
--   of wr/rd(s) after the stonewall hit (that line's time, or the summary's Stonewall(s); after the deadline by the
--   transfers in flight), else after the deadline; open and close are close_time's. The first result row of the
--   log's first test, as in close_time.
-- - mdtest (mdtest-easy-write, mdtest-hard-write): items per rank at the stonewall ("Continue stonewall hit min:
--   ... max: ... avg: ...") against its deadline (-W on its command line); the wear-down is the part of the File
--   creation time after the deadline (SUMMARY time's Max: the phase's wall clock; mdtest 3.3 with one iteration
--   prints it over ranks, whose slowest is the phase's).
-- slowest_share = min / max: the slowest rank's progress when the deadline came, as a share of the fastest's;
-- done_at_stonewall_share = mean / max: the share of the phase's items done when it came (at the end every rank
-- has done the most).
-- A phase that ended before its deadline never hit the stonewall (every rank did its whole share): no wear_down_s.
-- A failed phase is no row: an IOR log that stopped with an ERROR before its result row is never linked, and an IOR
-- row of 0 MiB/s is no phase; an mdtest summary with an operation its log printed as failed (mdtest_results.failed)
-- is no phase. valid is IO500's own verdict on the phase.
WITH ior AS (
    SELECT l.run_id, l.phase, 'IOR' AS tool, 'transfers per rank' AS unit, l.source_id, l.log_path,
           t.stonewall_s::DOUBLE AS stonewall_s, t.stonewall_pairs_min AS stonewall_min,
           t.stonewall_pairs_max AS stonewall_max,
           -- the mean data is printed to 0.1 GiB: only from 5 GiB is its rounding (0.05 GiB) within 1 %
           CASE WHEN t.stonewall_mean_gib >= 5 THEN t.stonewall_mean_gib * 2^30 / nullif(t.transfer_bytes, 0)
                END AS stonewall_mean,
           COALESCE(s.stonewall_time_s, t.stonewall_hit_s) AS stonewall_hit_s,
           i.wrrd_s AS timed_s, i.total_s
    FROM io500_phase_log_links l
    JOIN ior_tests t USING (source_id)
    JOIN ior_iterations i ON i.test_id = t.test_id AND i.access = 'write'
    LEFT JOIN ior_summary s ON s.test_id = t.test_id AND s.access = 'write'
    WHERE l.phase IN ('ior-easy-write', 'ior-hard-write') AND t.stonewall_s > 0
      AND t.stonewall_pairs_max IS NOT NULL AND i.bw_mib_s > 0
    QUALIFY row_number() OVER (PARTITION BY l.run_id, l.phase ORDER BY t.test_index, i.iteration) = 1
),
mdtest AS (
    SELECT l.run_id, l.phase, 'mdtest' AS tool, 'items per rank' AS unit, l.source_id, l.log_path,
           TRY_CAST(regexp_extract(m.command, '["'']?-W["'']?\s+["'']?([0-9]+)', 1) AS DOUBLE) AS stonewall_s,
           m.stonewall_items_min AS stonewall_min, m.stonewall_items_max AS stonewall_max,
           m.stonewall_items_avg AS stonewall_mean, NULL::DOUBLE AS stonewall_hit_s,
           x.max AS timed_s, x.max AS total_s
    FROM io500_phase_log_links l
    JOIN mdtest_runs m USING (source_id)
    LEFT JOIN mdtest_results x ON x.mdtest_id = m.mdtest_id AND x.table_kind = 'time'
                              AND x.operation = 'File creation'
    WHERE l.phase IN ('mdtest-easy-write', 'mdtest-hard-write') AND m.stonewall_items_max IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM mdtest_results f WHERE f.mdtest_id = m.mdtest_id AND f.failed)
    QUALIFY row_number() OVER (PARTITION BY l.run_id, l.phase ORDER BY m.summary_index) = 1
),
phases AS (
    SELECT * FROM ior
    UNION ALL BY NAME
    SELECT * FROM mdtest
)
SELECT r.run_id, r.run_key, g.machine, g.family, w.phase, w.tool, w.unit, w.stonewall_s,
       w.stonewall_min, w.stonewall_max, w.stonewall_mean,
       w.stonewall_min / nullif(w.stonewall_max, 0) AS slowest_share,
       w.stonewall_mean / nullif(w.stonewall_max, 0) AS done_at_stonewall_share,
       w.stonewall_hit_s,
       w.timed_s,  -- what the stonewall clock times: IOR's wr/rd(s), mdtest's File creation time
       w.total_s,  -- the phase's time: IOR's total(s) with open and close, mdtest's File creation time
       CASE WHEN w.timed_s >= w.stonewall_s THEN w.timed_s - COALESCE(w.stonewall_hit_s, w.stonewall_s)
            END AS wear_down_s,
       CASE WHEN w.timed_s >= w.stonewall_s THEN (w.timed_s - COALESCE(w.stonewall_hit_s, w.stonewall_s)) / w.total_s
            END AS wear_down_share,
       p.valid, w.source_id, w.log_path
FROM phases w
JOIN io500_runs r USING (run_id)
JOIN io500_phases p USING (run_id, phase)
LEFT JOIN setups g USING (run_id)
WHERE r.counted
ORDER BY r.run_key, w.phase;

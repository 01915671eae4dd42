-- One row per counted IO500 run (a run stored twice counts once) and IOR phase (ior-easy-write, ior-easy-read,
-- ior-hard-write, ior-hard-read) whose own IOR log is linked to it (io500_phase_log_links): where the phase's time
-- went, from the log's result row: open(s), wr/rd(s), close(s) and total(s), and the shares of open and close in
-- the total (Kunkel et al., arXiv 2605.02194: close-time overhead differs by file system). IOR times each step
-- from the first rank's start to the last rank's end, so the three steps need not add up to total(s).
-- The first result row of the log's first test: the C app runs one iteration, and io500.sh scored the first row
-- (`grep '^write' | head -1`) when a log holds more; `iterations` says how many it holds.
-- A failed phase is no row: a log that stopped with an ERROR before its result row does not parse (sources.status
-- 'error') and is never linked, and a row of 0 MiB/s or of no time is no phase. ior_tests.finished is no failure:
-- the C app's phase logs stop before IOR's "Finished" line. valid is IO500's own verdict on the phase (its
-- summary marked it invalid, or its value is 0).
WITH first_rows AS (
    SELECT l.run_id, l.phase, l.source_id, l.log_path, t.test_id, t.api, t.tasks, t.nodes, i.access, i.bw_mib_s,
           i.open_s, i.wrrd_s, i.close_s, i.total_s,
           count(*) OVER (PARTITION BY l.run_id, l.phase) AS iterations
    FROM io500_phase_log_links l
    JOIN ior_tests t USING (source_id)
    JOIN ior_iterations i ON i.test_id = t.test_id
                         AND i.access = CASE WHEN l.phase LIKE '%-write' THEN 'write' ELSE 'read' END
    WHERE l.phase IN ('ior-easy-write', 'ior-easy-read', 'ior-hard-write', 'ior-hard-read')
    QUALIFY row_number() OVER (PARTITION BY l.run_id, l.phase ORDER BY t.test_index, i.iteration) = 1
)
SELECT r.run_id, r.run_key, g.machine, g.family, f.phase, f.access, f.api, f.tasks, f.nodes, f.bw_mib_s,
       f.open_s, f.wrrd_s, f.close_s, f.total_s,
       f.open_s / f.total_s AS open_share,
       f.close_s / f.total_s AS close_share,
       f.iterations, p.valid, f.source_id, f.log_path
FROM first_rows f
JOIN io500_runs r USING (run_id)
JOIN io500_phases p USING (run_id, phase)
LEFT JOIN setups g USING (run_id)
WHERE r.counted AND f.bw_mib_s > 0 AND f.total_s > 0
ORDER BY r.run_key, f.phase;

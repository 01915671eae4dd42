-- The bandwidth phases of each run (counted once) whose setup states its client nodes, with what one client node
-- moved (GiB/s x 2^30 x 8 / 1e9 over the client nodes: Gbit/s) and the date a port's rate is looked up by
-- (ports.port_census: the census of runs above one client port, not a flag). Each phase's IOR command line as the
-- run's files print it (the C app's result.txt `exe`; the bash script's `[Exec]` line of the same phase: its
-- ior_easy/ior_hard folder and -w/-r) says how its data moved: -a DFS (DAOS's user-space library),
-- --posix.odirect or -B (O_DIRECT), -C (each task reads what a task of another node wrote), -e (fsync at close,
-- inside the phase's time).
WITH commands AS (
    SELECT m.run_id, p.phase, p.command
    FROM raw_io500_phases p JOIN io500_run_members m USING (source_id)
    WHERE p.command IS NOT NULL AND p.phase LIKE 'ior-%'
    UNION ALL
    SELECT m.run_id,
           'ior-' || CASE WHEN i.value LIKE '%ior_easy%' THEN 'easy' WHEN i.value LIKE '%ior_hard%' THEN 'hard' END
               || '-' || CASE WHEN regexp_matches(i.value, '\s-w\s') THEN 'write'
                              WHEN regexp_matches(i.value, '\s-r\s') THEN 'read' END,
           i.value
    FROM raw_io500_info i JOIN io500_run_members m USING (source_id)
    WHERE i.key = 'exec' AND regexp_matches(i.value, '/ior\s')
), paths AS (
    SELECT run_id, phase,
           bool_or(regexp_matches(command, '\s-a\s+DFS(\s|$)')) AS dfs,
           bool_or(regexp_matches(command, '--posix\.odirect|\s-B(\s|$)')) AS o_direct,
           bool_and(regexp_matches(command, '\s-C(\s|$)')) AS reordered,
           bool_and(regexp_matches(command, '\s-e(\s|$)')) AS fsync
    FROM commands WHERE phase IS NOT NULL GROUP BY run_id, phase
)
SELECT r.run_id, r.run_key, r.institution, r.system, r.started, r.year, s.client_nodes, p.phase, p.value AS gib_s,
       p.value * 2^30 * 8 / 1e9 / s.client_nodes AS node_gbit_s, c.dfs, c.o_direct, c.reordered, c.fsync
FROM io500_runs r JOIN setups s USING (run_id) JOIN io500_run_phases p USING (run_id)
LEFT JOIN paths c ON c.run_id = r.run_id AND c.phase = p.phase
WHERE r.counted AND s.client_nodes > 0 AND p.unit = 'GiB/s' AND p.value > 0
ORDER BY r.run_key, p.phase

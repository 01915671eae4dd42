-- Per file (of a list of source ids) its setup fields a comparison names (iobook.setups.COMPARED): for the phase
-- log of an IO500 run, that run's, with the codes of its validity audit's flags, comma-separated; for any other
-- fio, IOR or mdtest log, what a setup.yml beside it states (view log_setups: release, data protection, client
-- nodes), no flags.
SELECT l.source_id, s.benchmark, s.procs, s.release, s.client_nodes, s.api, s.protection, s.changed_during_run,
       (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f
        WHERE f.run_id = l.run_id) AS flags
FROM io500_phase_log_links l JOIN setups s USING (run_id)
WHERE list_contains(?, l.source_id)
UNION ALL
SELECT g.source_id, NULL, NULL, g.release, g.client_nodes, NULL, g.protection, NULL, NULL
FROM log_setups g
WHERE list_contains(?, g.source_id) AND g.source_id NOT IN (SELECT source_id FROM io500_phase_log_links)
ORDER BY source_id

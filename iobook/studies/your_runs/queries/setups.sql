-- Per file (of a list of source ids) that is a phase log of an IO500 run: that run's setup fields a comparison names
-- (iobook.setups.COMPARED) and the codes of its validity audit's flags, comma-separated.
SELECT l.source_id, s.benchmark, s.procs, s.release, s.client_nodes, s.api, s.protection, s.changed_during_run,
       (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f
        WHERE f.run_id = l.run_id) AS flags
FROM io500_phase_log_links l JOIN setups s USING (run_id)
WHERE list_contains(?, l.source_id)
ORDER BY l.source_id

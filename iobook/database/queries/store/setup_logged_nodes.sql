-- The client nodes a run's IOR log of one phase (?) counted (its header's 'nodes').
SELECT l.run_id, max(t.nodes) FROM io500_phase_log_links l JOIN ior_tests t USING (source_id)
WHERE l.phase = ? AND t.nodes > 0 GROUP BY l.run_id

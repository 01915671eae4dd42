-- How many runs (each counted once) each flag of the validity audit (view io500_run_flags) can test: those whose
-- files state what its rule reads. CHANGED_DURING_RUN reads a run's own scripts, found in Python
-- (analysis.flag_coverage).
WITH counted AS (SELECT run_id FROM io500_runs WHERE counted)
SELECT 'RANDOM_READ_CACHED' AS code, count(DISTINCT x.run_id) AS testable
FROM io500_run_phases x JOIN io500_run_phases e ON e.run_id = x.run_id AND e.phase = 'ior-easy-read'
WHERE x.phase IN ('ior-rnd4K-easy-read', 'ior-rnd4K-read') AND e.value > 0 AND x.run_id IN (SELECT run_id FROM counted)
UNION ALL
SELECT 'UNPROTECTED', count(DISTINCT run_id) FROM io500_run_setup
WHERE field = 'object_classes' AND run_id IN (SELECT run_id FROM counted)
UNION ALL
SELECT 'ABOVE_LINKS', count(DISTINCT run_id) FROM io500_run_bounds WHERE run_id IN (SELECT run_id FROM counted)
UNION ALL
SELECT 'IMPLAUSIBLE', count(DISTINCT p.run_id) FROM io500_run_phases p JOIN io500_run_info i USING (run_id)
WHERE p.unit = 'kIOPS' AND coalesce(p.procs, i.procs) > 0 AND p.run_id IN (SELECT run_id FROM counted)
UNION ALL
SELECT 'ABOVE_CLIENT_LINK', count(DISTINCT s.run_id) FROM setups s JOIN io500_run_phases p USING (run_id)
WHERE s.client_link_bound_gbit_s > 0 AND s.client_nodes > 0 AND p.unit = 'GiB/s' AND p.value > 0
  AND s.run_id IN (SELECT run_id FROM counted)

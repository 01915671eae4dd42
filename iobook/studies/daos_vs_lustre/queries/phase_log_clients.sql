-- Client nodes and tasks of every run as each IOR and mdtest phase log linked to it counts them: IOR's nodes derive
-- from its tasks and clients per node, mdtest's from "launched with N total task(s) on M node(s)".
SELECT k.run_id, k.phase, t.nodes, t.tasks FROM io500_phase_log_links k JOIN ior_tests t USING (source_id)
WHERE k.phase LIKE 'ior-%' AND t.nodes IS NOT NULL
UNION ALL
SELECT k.run_id, k.phase, m.nodes, m.launched_tasks AS tasks
FROM io500_phase_log_links k JOIN raw_mdtest_summaries m USING (source_id)
WHERE m.nodes IS NOT NULL
ORDER BY run_id, phase

-- Each sqrt-rule IO500 run's scored phases, each with its value from its own IOR/mdtest log where io500_phase_logs
-- links one (the summary's otherwise), whether it did, and the run's reported score.
SELECT p.run_id, p.phase, coalesce(l.log_value, p.value), l.log_value IS NOT NULL, s.reported_score
FROM io500_run_phases p JOIN io500_run_scores s USING (run_id)
LEFT JOIN io500_phase_logs l USING (run_id, phase)
WHERE p.scored AND s.score_rule = 'sqrt' ORDER BY p.run_id, p.position

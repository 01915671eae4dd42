-- The runs of one system (institution ?, system ?) with their scores and setup era and benchmark.
SELECT r.run_key, r.run_id, r.year, s.score, s.bw_gib_s, s.md_kiops, s.reported_score, s.valid, g.era, g.benchmark
FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN setups g USING (run_id)
WHERE r.institution = ? AND r.system = ?
ORDER BY r.run_key

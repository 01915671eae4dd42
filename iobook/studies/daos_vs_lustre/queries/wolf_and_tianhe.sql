-- The runs of two systems (institution ?, system ?, then institution ?, system ?) with their scores.
SELECT r.run_key, r.run_id, r.institution, r.system, r.year, r.io500_version, s.score, s.bw_gib_s, s.md_kiops, s.valid
FROM io500_runs r JOIN io500_scores s USING (run_id)
WHERE (r.institution = ? AND r.system = ?) OR (r.institution = ? AND r.system = ?)
ORDER BY r.system DESC, r.year, r.run_key

-- The three totals of the runs named in the list parameter, recomputed from their phases (io500_scores):
-- bandwidth (GiB/s), metadata (kIOPS) and score.
SELECT r.run_key, s.bw_gib_s, s.md_kiops, s.score
FROM io500_runs r JOIN io500_scores s USING (run_id)
WHERE list_contains(?, r.run_key)

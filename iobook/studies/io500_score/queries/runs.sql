-- Every IO500 run: its score recomputed from the summary's phases beside the printed one, validity, an implausible
-- value (io500_runs.implausible), the score recomputed from its phase logs where they are linked, and whether it is a
-- copy of a run filed twice (`duplicate`: not io500_runs.counted; the chapter counts each run once).
SELECT r.run_key, r.run_id, r.institution, r.system, r.filesystem, r.year, r.io500_version, r.implausible,
       s.score, s.reported_score, s.reported_score_native, s.bw_gib_s, s.md_kiops, s.valid,
       s.score_rule, s.score_matches, s.score_check, s.invalid_reasons,
       l.score AS score_from_logs, l.matches_reported AS logs_match, NOT r.counted AS duplicate
FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN io500_scores_from_logs l USING (run_id)
ORDER BY r.run_key

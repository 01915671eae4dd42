-- Each row of a printed list beside the raw runs of the list's year whose score equals the printed one within
-- half of the last printed digit (?). _printed is the published list in wide form, registered by
-- seeds.list_against_raw.
SELECT p.list, p.institution, p.system, p.published_score, p.published_bw, p.published_md,
       r.run_key, r.run_id, r.institution AS raw_institution, r.system AS raw_system,
       s.score AS raw_score, s.bw_gib_s AS raw_bw, s.md_kiops AS raw_md
FROM _printed p
LEFT JOIN (io500_runs r JOIN io500_scores s USING (run_id))
  ON r.year = 2000 + CAST(right(p.list, 2) AS INTEGER) AND abs(s.score - p.published_score) <= ?
ORDER BY p.published_score DESC, p.row, r.run_id

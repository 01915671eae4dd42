-- Every IO500 run with its family and the evidence for it (io500_runs), its printed benchmark release, score and
-- validity, whether it is a copy of a run counted once elsewhere, an implausible value, and its setup record's
-- machine (one installation under any of its labels), data protection (the DAOS object classes), era and
-- benchmark generation.
SELECT r.run_key, r.run_id, r.institution, r.system, r.filesystem, r.year, r.submission, r.io500_version,
       r.family, r.family_reason, r.attributed_by, r.files_evidence, r.implausible, s.score, s.bw_gib_s, s.md_kiops,
       s.valid, NOT r.counted AS duplicate, g.machine, g.protection, g.era, g.generation
FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN setups g USING (run_id)
ORDER BY r.run_key

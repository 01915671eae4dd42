-- Every IO500 run with what its setup reads first (iobook.database.setups.derive): its summary's fields, its
-- attribution, the kinds of its member files, and its own summary's sub-scores (printed, else recomputed), which
-- its list entry is checked against (iobook.database.io500_lists).
SELECT i.run_id, i.path, i.io500_version, i.mode, i.procs, i.stonewall_s, i.submission, i.fingerprint,
       i.started, a.year, a.institution, a.system, a.filesystem, a.family, a.family_reason, a.attributed_by,
       list(DISTINCT f.kind ORDER BY f.kind) AS kinds,
       coalesce(s.reported_bw_gib_s, s.bw_gib_s) AS bw_gib_s, coalesce(s.reported_md_kiops, s.md_kiops) AS md_kiops
FROM io500_run_info i JOIN io500_run_attribution a USING (run_id) JOIN io500_run_scores s USING (run_id)
JOIN io500_run_members m USING (run_id) JOIN raw_io500_files f USING (source_id)
GROUP BY ALL ORDER BY i.run_id

-- Every counted IO500 run (io500_runs: each copy once) with its file-system family and, from the setup record, the
-- installed release of its file system's software (never minReleaseLevel), the source that states it, and what the
-- run's scripts change while it runs, and the validity audit's flags (an example is named with its flag).
SELECT r.run_id, r.run_key, r.path, r.institution, r.system, r.filesystem, r.year, r.submission, r.started,
       r.procs, r.io500_version, r.family, r.family_reason, g.release AS scale_release_stated,
       s.source AS release_source, g.changed_during_run,
       (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f WHERE f.run_id = r.run_id)
           AS validity_flags
FROM io500_runs r LEFT JOIN setups g USING (run_id)
LEFT JOIN io500_run_setup s ON s.run_id = r.run_id AND s.field = 'release'
WHERE r.counted ORDER BY r.started, r.run_key

-- Each IO500 phase log's run's institution, system and file system (io500_phase_log_links), where a system is named.
SELECT DISTINCT l.source_id, r.institution, r.system, r.filesystem
FROM io500_phase_log_links l JOIN io500_runs r USING (run_id) WHERE r.system IS NOT NULL

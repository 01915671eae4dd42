-- What the system-information files and questionnaires in the folder of one of a run's files or above say
-- (io500_run_system_files), the nearest first.
SELECT x.run_id, i.key, i.value FROM io500_run_system_files x JOIN raw_io500_info i USING (source_id)
WHERE x.format IN ('io500-system-information', 'io500-questionnaire')
ORDER BY x.run_id, length(x.path) DESC, x.path, i.line

-- IO500 phases against the IOR/mdtest logs the run wrote for them (ior-easy-write.txt, ior_easy_write.txt,
-- mdtest-hard-stat.txt, ...): does the value the IO500 summary reports follow from the log?
-- Units: the summary's (GiB/s for ior-*, kIOPS for mdtest-*); log_value is the log's number put on that scale.

-- A phase log sits in the folder of one of the run's summary files and is named after the phase; the
-- phase's identity comes from that IO500 layout, whatever the log's format. A folder holding several runs
-- (repeated bash runs) keeps one set of logs: each log goes to the run that started last before it.
CREATE OR REPLACE VIEW io500_phase_log_links AS
WITH run_folders AS (
    SELECT DISTINCT f.run_id, regexp_replace(f.path, '[^/]*$', '') AS folder,
           try_strptime(r.started, ['%Y.%m.%d-%H.%M.%S', '%Y-%m-%d %H:%M:%S']) AS started
    FROM io500_run_files f JOIN io500_runs r USING (run_id)
),
-- each log's start, aggregated per file and joined (as correlated subqueries they did not fit the
-- writer's memory at 20,000 files)
ior_started AS (
    SELECT source_id, min(try_strptime(began, '%a %b %d %H:%M:%S %Y')) AS started FROM ior_tests GROUP BY source_id
),
mdtest_started AS (
    SELECT source_id, min(TRY_CAST(started_at AS TIMESTAMP)) AS started FROM raw_mdtest_summaries GROUP BY source_id
),
logs AS (
    SELECT s.source_id, s.path, regexp_replace(s.path, '[^/]*$', '') AS folder,
           regexp_replace(replace(regexp_extract(s.path, '[^/]*$'), '_', '-'), '\.txt$', '') AS phase,
           coalesce(i.started, m.started) AS started
    FROM sources s
    LEFT JOIN ior_started i ON i.source_id = s.source_id
    LEFT JOIN mdtest_started m ON m.source_id = s.source_id
    WHERE s.status = 'ok' AND s.format IN ('ior-text', 'mdtest-text')
)
SELECT p.run_id, p.phase, l.source_id, l.path AS log_path
FROM io500_phases p
JOIN run_folders f USING (run_id)
JOIN logs l ON l.folder = f.folder AND l.phase = p.phase
QUALIFY row_number() OVER (PARTITION BY l.source_id
                           ORDER BY f.started <= l.started DESC NULLS LAST, f.started DESC NULLS LAST, p.run_id) = 1;

-- Each phase's log value by the rule its script used:
-- - C app (result.txt/result_summary.txt): IOR's bandwidth / 1024 and mdtest's rate / 1000, compared at the
--   coarser printed precision. IOR prints an iteration's MiB/s as an integer from 3600 MiB/s up (every such
--   row in the archive), "Max Write"/summary rows with 2 decimals; mdtest prints rates with 3 decimals.
-- - C app with mdtest 3.3/3.4 and one iteration: the log's Max/Min/Mean are over ranks, while io500 scored
--   mdtest's aggregate rate (items / max time across ranks), which lies within the row's [min, max].
-- - bash io500.sh (io500_fixed.sh): `grep '^write' | head -1 | awk '{print $2/1024}'` -- the first iteration
--   row, not the Max -- and `grep '^ *File creation' | awk '{print $4/1000}'` (column 4 is Max in the
--   "File creation :" layout of the mdtest versions it ran); awk prints 6 significant digits (%.6g), then
--   printf '%.3f' rounds again, so the awk value is compared at the summary's 3 decimals.
CREATE OR REPLACE VIEW io500_phase_logs AS
WITH phases AS (
    SELECT k.run_id, k.phase, k.source_id, k.log_path, p.value AS summary_value, p.unit,
           CASE WHEN f.kind LIKE 'bash-%' THEN 'bash'
                WHEN f.kind IN ('result-ini', 'summary', 'stdout') THEN 'app' END AS script,
           -- half the summary's last printed digit
           (SELECT max(x.resolution) FROM raw_io500_phases x
            WHERE x.source_id = p.source_id AND x.phase = p.phase) AS summary_half_digit,
           CASE WHEN k.phase LIKE '%-write' THEN 'write' ELSE 'read' END AS ior_access,
           CASE WHEN k.phase LIKE '%-write' THEN 'File creation' WHEN k.phase LIKE '%-stat' THEN 'File stat'
                WHEN k.phase LIKE '%-read' THEN 'File read' WHEN k.phase LIKE '%-delete' THEN 'File removal'
           END AS mdtest_operation
    FROM io500_phase_log_links k
    JOIN io500_phases p USING (run_id, phase)
    JOIN raw_io500_files f ON f.source_id = p.source_id
),
ior_logs AS (
    SELECT p.*,
           (SELECT s.bw_max_mib_s FROM ior_summary s JOIN ior_tests t USING (test_id)
            WHERE t.source_id = p.source_id AND s.access = p.ior_access
            ORDER BY t.test_index LIMIT 1) AS max_mib_s,
           (SELECT i.bw_mib_s FROM ior_iterations i JOIN ior_tests t USING (test_id)
            WHERE t.source_id = p.source_id AND i.access = p.ior_access
            ORDER BY t.test_index, i.iteration LIMIT 1) AS first_row_mib_s
    FROM phases p WHERE p.phase LIKE 'ior-%'
),
mdtest_logs AS (
    SELECT p.*, m.version, m.iterations, r.max, r.min
    FROM phases p
    -- raw tables: mdtest_runs' mdtest_id overflows INTEGER for source ids above 2147
    LEFT JOIN raw_mdtest_summaries m ON m.source_id = p.source_id
    LEFT JOIN raw_mdtest_results r ON r.source_id = m.source_id AND r.summary_index = m.summary_index
                                  AND r.table_kind = 'rate' AND r.operation = p.mdtest_operation
    WHERE p.phase LIKE 'mdtest-%'
    QUALIFY row_number() OVER (PARTITION BY p.run_id, p.phase ORDER BY r.max IS NULL, m.summary_index) = 1
),
checked AS (
    SELECT run_id, phase, source_id, log_path, summary_value, unit,
           CASE script WHEN 'bash' THEN CAST(printf('%.6g', first_row_mib_s / 1024) AS DOUBLE)
                       ELSE max_mib_s / 1024 END AS log_value,
           CASE script WHEN 'bash' THEN 'bash: first ' || ior_access || ' row MiB/s / 1024 (awk %.6g)'
                       WHEN 'app' THEN 'ior max MiB/s / 1024' END AS rule,
           NULL::DOUBLE AS log_min,
           summary_half_digit + 1e-9 + CASE script WHEN 'bash' THEN 0
                                       ELSE (CASE WHEN max_mib_s >= 3600 AND max_mib_s = round(max_mib_s)
                                                  THEN 0.5 ELSE 0.005 END) / 1024 END AS tolerance
    FROM ior_logs
    UNION ALL
    SELECT run_id, phase, source_id, log_path, summary_value, unit,
           CASE script WHEN 'bash' THEN CAST(printf('%.6g', max / 1000) AS DOUBLE) ELSE max / 1000 END,
           CASE WHEN script = 'bash' THEN 'bash: first ' || mdtest_operation || ' row Max / 1000 (awk %.6g)'
                WHEN script = 'app' AND iterations = 1 AND min < max
                     AND (version LIKE '3.3%' OR version LIKE '3.4%') THEN 'within [min, max] (items / max time)'
                WHEN script = 'app' THEN 'mdtest rate max / 1000' END,
           min / 1000,
           summary_half_digit + 1e-9 + CASE script WHEN 'bash' THEN 0 ELSE 0.0005 / 1000 END
    FROM mdtest_logs
),
judged AS (
    SELECT *, coalesce(CASE WHEN rule LIKE 'within%'
                            THEN summary_value BETWEEN log_min - tolerance AND log_value + tolerance
                            ELSE abs(summary_value - log_value) <= tolerance END, false) AS agrees
    FROM checked
)
SELECT run_id, phase, source_id, log_path, log_value, summary_value, unit, rule, agrees,
       CASE WHEN agrees THEN NULL
            WHEN rule IS NULL THEN 'no known rule for this summary''s script'
            WHEN log_value IS NULL THEN 'the log has no ' || phase || ' value'
            WHEN log_value = 0 THEN 'the log prints 0 where the summary reports ' || summary_value || ' ' || unit
            WHEN rule LIKE 'within%'
                THEN 'summary ' || summary_value || ' ' || unit || ' outside the log''s [min, max] = ['
                     || log_min || ', ' || log_value || ']'
            ELSE 'summary ' || summary_value || ' ' || unit || ' vs the log''s ' || log_value
                 || printf(': off by %.3g, more than the printed precision allows (%.3g)',
                           summary_value - log_value, tolerance)
       END AS reason
FROM judged;

CREATE OR REPLACE VIEW io500_phase_log_disagreements AS
SELECT * FROM io500_phase_logs WHERE NOT agrees;

-- Scores recomputed with each phase's value from its own IOR/mdtest log where one is linked, the summary's
-- value otherwise (find has no log): written at ingest by iobook/io500_runs.py (scores_from_logs), so the IO500
-- score formula has one implementation (io500_runs.recompute). Runs without a linked log have no row.
CREATE OR REPLACE VIEW io500_scores_from_logs AS
SELECT run_id, bw_gib_s, md_kiops, score, phases_from_logs, reported_score, matches_reported
FROM io500_run_scores_from_logs;

-- Runs whose score is not the reported one within 0.1 %, recomputed from the summary's phase values nor
-- from the phase logs' values, or that cannot be compared, and why.
CREATE OR REPLACE VIEW io500_score_mismatches AS
SELECT r.run_id, r.path, s.score, l.score AS score_from_logs, s.reported_score_native, s.score_rule,
       s.score_check AS reason
FROM io500_run_scores s
JOIN io500_run_info r USING (run_id)
LEFT JOIN io500_scores_from_logs l USING (run_id)
WHERE s.score_matches IS DISTINCT FROM true AND l.matches_reported IS DISTINCT FROM true;


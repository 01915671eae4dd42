-- IO500 runs assembled by iobook/io500_runs.py from the raw_io500_* tables.
-- Units: bandwidth in GiB/s, metadata rates in kIOPS, times in seconds.

-- Values no storage system can give, by one stated rule: a metadata phase (or find) claiming more than
-- 5e9 items per second per process, i.e. more than one item per clock cycle of a 5 GHz core. The processes
-- are the phase's own (find's nproc) where its file says, else the run's. Such a run is flagged, never a
-- "best run" example; its values stay in the tables.
CREATE OR REPLACE VIEW io500_implausible_phases AS
SELECT p.run_id, p.phase, p.value, p.time_s, coalesce(p.procs, i.procs) AS procs,
       p.value * 1000 / coalesce(p.procs, i.procs) AS items_per_process_s,
       p.phase || ': ' || printf('%.3g', p.value * 1000) || ' items/s on ' || coalesce(p.procs, i.procs)
           || ' process' || CASE WHEN coalesce(p.procs, i.procs) = 1 THEN '' ELSE 'es' END
           || ', above 5e9 per process (one item per cycle of a 5 GHz core)' AS reason
FROM io500_run_phases p JOIN io500_run_info i USING (run_id)
WHERE p.unit = 'kIOPS' AND coalesce(p.procs, i.procs) > 0 AND p.value * 1000 / coalesce(p.procs, i.procs) > 5e9;

-- run_key names a run the way a reader selects it in a chapter's parameters, stable across databases
-- (run_id depends on ingest order): `submission-679` in the archive's layout (`submission-109/KAUST` in a
-- submission bundling several sites' folders), else its folder and start (`aurora-run 2023-11-06 19:51`,
-- iobook.io500_runs.run_name); qualified by the results folder, then by position (path, start, content: runs of
-- one file keep their order whatever order ingest met them in), where that alone is not unique.
CREATE OR REPLACE VIEW io500_runs AS
WITH named AS (
    SELECT i.run_id, i.path, i.io500_version, i.mode, i.started, i.result_dir, i.procs, i.stonewall_s, i.complete,
           i.submission, i.fingerprint, a.institution, a.system, a.filesystem, a.year, a.family, a.family_reason,
           a.attributed_by, a.files_family, a.files_evidence, regexp_extract(i.path, '[^/]+$') AS folder,
           coalesce(a.name, 'submission-' || i.submission, regexp_extract(i.path, '[^/]+$')) AS base_key
    FROM io500_run_info i LEFT JOIN io500_run_attribution a USING (run_id)
), qualified AS (
    SELECT *, CASE WHEN count(*) OVER (PARTITION BY base_key) = 1 OR base_key = folder THEN base_key
                   ELSE base_key || '/' || folder END AS folder_key
    FROM named
)
SELECT run_id,
       CASE WHEN count(*) OVER (PARTITION BY folder_key) = 1 THEN folder_key
            ELSE folder_key || '#' || row_number() OVER (PARTITION BY folder_key ORDER BY path, started, fingerprint, run_id) END AS run_key,
       path, io500_version, mode, institution, system, filesystem, year, submission,
       started, result_dir, procs, stonewall_s, complete, fingerprint,
       family,           -- file-system family: iobook.io500_runs.attribute, never a chapter's own guess
       family_reason,    -- the evidence for it
       attributed_by,    -- 'archive folders', 'its own files (io500_info)', 'labels.yml: <glob>', 'attribution unknown'
       files_family,     -- what the run's own files (command lines, io500.sh, config.ini, file names) say of its
       files_evidence,   -- file system and API, whatever decided `family`: e.g. 'DFS API (-a DFS, --dfs.pool, ...)'
       (SELECT string_agg(x.reason, '; ' ORDER BY x.phase) FROM io500_implausible_phases x
        WHERE x.run_id = qualified.run_id) AS implausible,  -- io500_implausible_phases' reasons, else NULL
       -- one run once: of the copies of one run (same phase values, io500_duplicate_runs) the one attributed, then
       -- of the latest submission, then the last ingested is counted; every chapter counts only these
       row_number() OVER (PARTITION BY fingerprint ORDER BY attributed_by = 'attribution unknown', submission DESC NULLS LAST,
                          run_id DESC) = 1 AS counted
FROM qualified;

CREATE OR REPLACE VIEW io500_phases AS
SELECT run_id, phase, value, unit, time_s, scored, valid, stonewall_s, source_id, position,
       procs  -- the phase's own processes where its file says (the C app's nproc, e.g. find's); else NULL
FROM io500_run_phases;


CREATE OR REPLACE VIEW io500_scores AS
SELECT run_id, bw_gib_s, md_kiops, score, reported_bw_gib_s, reported_md_kiops, reported_score, valid,
       invalid_reasons, score_rule, reported_score_native, x_bw_gib_s, x_md_kiops, x_score, reported_x_score, score_matches, score_check
FROM io500_run_scores;

CREATE OR REPLACE VIEW io500_run_files AS
SELECT m.run_id, m.source_id, s.path, m.role, s.format, s.sha256
FROM io500_run_members m JOIN sources s USING (source_id);

-- The same run (same phase values) stored more than once (filed under two submissions, or the archive copied):
-- each copy but the last ingested, once, with that last copy (same_as_run_id). Keyed on the fingerprint by one
-- window: a self-join listing every pair of copies grew with the square of the copies (120 pairs a run at 16).
CREATE OR REPLACE VIEW io500_duplicate_runs AS
WITH copies AS (
    SELECT run_id, submission, fingerprint,
           last_value(run_id) OVER last_ingested AS same_as_run_id,
           last_value(submission) OVER last_ingested AS same_as_submission
    FROM io500_run_info
    WINDOW last_ingested AS (PARTITION BY fingerprint ORDER BY run_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
)
SELECT run_id, same_as_run_id, submission, same_as_submission, fingerprint
FROM copies WHERE run_id <> same_as_run_id;

-- How the bash script's submitters described their system (io500_info_* lines of its log), per run: e.g.
-- num_data_server_nodes, num_metadata_server_nodes, num_client_nodes, filesystem, as printed (text).
CREATE OR REPLACE VIEW io500_system_info AS
SELECT DISTINCT m.run_id, i.key, i.value
FROM raw_io500_info i JOIN io500_run_members m USING (source_id);

-- Files describing a run's system rather than its results (Storage Scale mmlsconfig/mmlscluster/mmlsfs listings,
-- system-information.txt and the JSON questionnaire):
-- those in the folder of one of the run's files or in a folder above it. Chapters read this view, never
-- path patterns of their own.
-- a run's folders and every folder above them, joined to a listing's folder by equality: a prefix test
-- (starts_with) compared every run folder with every listing, which grew with the square of the archive
CREATE OR REPLACE VIEW io500_run_system_files AS
WITH run_folders AS (SELECT DISTINCT run_id, string_split(parse_dirpath(path), '/') AS parts FROM io500_run_files),
above AS (
    SELECT DISTINCT f.run_id, array_to_string(f.parts[1:depth], '/') AS folder
    FROM run_folders f, range(1, len(f.parts) + 1) AS d(depth)
)
SELECT DISTINCT a.run_id, s.source_id, s.path, s.format
FROM above a
JOIN sources s ON (s.tool = 'gpfs' OR s.format IN ('io500-system-information', 'io500-questionnaire'))
                 AND s.status = 'ok' AND a.folder = parse_dirpath(s.path)
WHERE a.folder <> '';

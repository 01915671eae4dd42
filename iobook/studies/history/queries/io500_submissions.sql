-- One row per IO500 system (institution · system · file system, as attributed) and archive submission, for systems
-- with at least ? submissions under one score rule: when its first run started (the run's own timestamp), the
-- scores and bandwidth and metadata sub-scores of its counted runs (a run submitted again counted once), IO500 version(s), processes, validity, the
-- runs' keys and the setup fields a change point compares (the benchmark's generation among them).
WITH runs AS (
    SELECT r.institution || ' · ' || r.system || ' · ' || r.filesystem AS system, s.score_rule, r.submission,
           try_strptime(r.started, ['%Y.%m.%d-%H.%M.%S', '%Y-%m-%d %H:%M:%S']) AS started, s.score,
           s.bw_gib_s, s.md_kiops,
           r.io500_version, r.procs, s.valid, r.run_key, g.generation, g.release, g.client_nodes, g.api,
           g.protection, g.changed_during_run
    FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN setups g USING (run_id)
    WHERE r.counted AND s.score > 0 AND r.system IS NOT NULL AND r.submission IS NOT NULL
), submissions AS (
    SELECT system, score_rule, submission, min(started) AS started, list(score ORDER BY run_key) AS scores,
           list(bw_gib_s ORDER BY run_key) AS bw_values, list(md_kiops ORDER BY run_key) AS md_values,
           count(*) AS runs, string_agg(DISTINCT generation, ', ' ORDER BY generation) AS generation,
           string_agg(DISTINCT io500_version, ', ') AS io500_version,
           string_agg(DISTINCT procs::VARCHAR, ', ') AS procs, bool_and(valid) AS valid,
           string_agg(run_key, ', ' ORDER BY run_key) AS run_keys,
           string_agg(DISTINCT release, ', ' ORDER BY release) AS release,
           string_agg(DISTINCT client_nodes::VARCHAR, ', ' ORDER BY client_nodes::VARCHAR) AS client_nodes,
           string_agg(DISTINCT api, ', ' ORDER BY api) AS api,
           string_agg(DISTINCT protection, ', ' ORDER BY protection) AS protection,
           string_agg(DISTINCT changed_during_run, '; ' ORDER BY changed_during_run) AS changed_during_run
    FROM runs WHERE started IS NOT NULL GROUP BY ALL
)
SELECT * FROM submissions
QUALIFY count(*) OVER (PARTITION BY system, score_rule) >= ?
ORDER BY system, score_rule, started, submission;

-- Every IO500 run's setup (iobook/setups.py: what its own files say, then setup.yml, then data/reference), a
-- column a field; io500_run_setup has each value with its source. A field no source states is NULL. The list's
-- published values (on the one run of a submission they belong to: iobook/database/io500_lists.py) stand beside the
-- run's own summary, with their relative difference and the reason code (list_check) and its detail.
CREATE OR REPLACE VIEW setups AS
SELECT r.run_id, r.run_key,
       any_value(s.value) FILTER (WHERE s.field = 'machine') AS machine,
       any_value(s.value) FILTER (WHERE s.field = 'cluster') AS cluster,
       any_value(s.value) FILTER (WHERE s.field = 'institution') AS institution,
       any_value(s.value) FILTER (WHERE s.field = 'system') AS system,
       any_value(s.value) FILTER (WHERE s.field = 'filesystem') AS filesystem,
       any_value(s.value) FILTER (WHERE s.field = 'family') AS family,
       any_value(s.value) FILTER (WHERE s.field = 'release') AS release,
       any_value(s.value) FILTER (WHERE s.field = 'min_release_level') AS min_release_level,
       any_value(s.value) FILTER (WHERE s.field = 'benchmark') AS benchmark,
       any_value(s.value) FILTER (WHERE s.field = 'era') AS era,
       any_value(s.value) FILTER (WHERE s.field = 'generation') AS generation,
       any_value(s.value) FILTER (WHERE s.field = 'list') AS list,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'list_score') AS DOUBLE) AS list_score,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'list_bw_gib_s') AS DOUBLE) AS list_bw_gib_s,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'list_md_kiops') AS DOUBLE) AS list_md_kiops,
       any_value(s.value) FILTER (WHERE s.field = 'list_check') AS list_check,
       any_value(s.source) FILTER (WHERE s.field = 'list_check') AS list_check_detail,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'list_entry') AS INTEGER) AS list_entry,
       -- the run's own summary beside the list's values (printed, else recomputed), and the list's over it
       any_value(coalesce(c.reported_score, c.score)) AS run_score,
       any_value(coalesce(c.reported_bw_gib_s, c.bw_gib_s)) AS run_bw_gib_s,
       any_value(coalesce(c.reported_md_kiops, c.md_kiops)) AS run_md_kiops,
       list_score / nullif(run_score, 0) - 1 AS list_score_difference,
       any_value(s.value) FILTER (WHERE s.field = 'api') AS api,
       any_value(s.value) FILTER (WHERE s.field = 'object_classes') AS object_classes,
       any_value(s.value) FILTER (WHERE s.field = 'protection') AS protection,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'client_nodes') AS BIGINT) AS client_nodes,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'procs_per_node') AS BIGINT) AS procs_per_node,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'procs') AS BIGINT) AS procs,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'stonewall_s') AS DOUBLE) AS stonewall_s,
       any_value(s.value) FILTER (WHERE s.field = 'changed_during_run') AS changed_during_run,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'servers') AS BIGINT) AS servers,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'drives') AS BIGINT) AS drives,
       any_value(s.value) FILTER (WHERE s.field = 'server_network') AS server_network,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'client_links') AS BIGINT) AS client_links,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'client_link_gbit_s') AS DOUBLE) AS client_link_gbit_s,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'server_links') AS BIGINT) AS server_links,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'server_link_gbit_s') AS DOUBLE) AS server_link_gbit_s,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'drive_gb_s') AS DOUBLE) AS drive_gb_s,
       TRY_CAST(any_value(s.value) FILTER (WHERE s.field = 'client_link_bound_gbit_s') AS DOUBLE)
           AS client_link_bound_gbit_s
FROM io500_runs r LEFT JOIN io500_run_setup s USING (run_id) LEFT JOIN io500_run_scores c USING (run_id)
GROUP BY r.run_id, r.run_key;

-- Every fio, IOR and mdtest log's setup, a column a field: what a setup.yml beside it states (log_setup, each value
-- with its source), and the client nodes that ran it as its own file says (IOR's header; a fio log is one host's
-- unless a setup.yml says otherwise).
CREATE OR REPLACE VIEW log_setups AS
WITH stated AS (
    SELECT source_id,
           any_value(value) FILTER (WHERE field = 'release') AS release,
           any_value(value) FILTER (WHERE field = 'protection') AS protection,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'client_nodes') AS BIGINT) AS client_nodes,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'servers') AS BIGINT) AS servers,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'drives') AS BIGINT) AS drives,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'client_links') AS BIGINT) AS client_links,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'client_link_gbit_s') AS DOUBLE) AS client_link_gbit_s,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'server_links') AS BIGINT) AS server_links,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'server_link_gbit_s') AS DOUBLE) AS server_link_gbit_s,
           TRY_CAST(any_value(value) FILTER (WHERE field = 'drive_gb_s') AS DOUBLE) AS drive_gb_s
    FROM log_setup GROUP BY source_id),
logged AS (
    SELECT source_id, max(nodes) AS nodes FROM ior_tests WHERE nodes > 0 GROUP BY source_id
    UNION ALL
    SELECT DISTINCT source_id, NULL FROM fio_jobs)
SELECT s.source_id, s.release, s.protection,
       coalesce(l.nodes, s.client_nodes, CASE WHEN l.source_id IS NOT NULL THEN 1 END) AS client_nodes,
       s.servers, s.drives, s.client_links, s.client_link_gbit_s, s.server_links, s.server_link_gbit_s, s.drive_gb_s
FROM stated s LEFT JOIN logged l USING (source_id);

-- The limits a setup states, in GiB/s (2^30 B/s, as IO500 prints), of an IO500 run (`unit` 'IO500 run', `id` its
-- run_id) or a log (`unit` 'log', `id` its source_id): its client nodes' links times their rate, its data servers'
-- links times theirs, its drives times one drive's rate. A limit with a factor no source states is absent (a
-- network named without its links or rate states no limit).
CREATE OR REPLACE VIEW setup_limits AS
WITH stated AS (
    SELECT 'IO500 run' AS unit, run_id AS id, client_nodes, client_links, client_link_gbit_s, servers, server_links,
           server_link_gbit_s, drives, drive_gb_s FROM setups
    UNION ALL
    SELECT 'log', source_id, client_nodes, client_links, client_link_gbit_s, servers, server_links,
           server_link_gbit_s, drives, drive_gb_s FROM log_setups)
SELECT unit, id, 'client links' AS limit_name, client_nodes * client_links * client_link_gbit_s * 1e9 / 8 / 2^30 AS gib_s,
       client_nodes || CASE WHEN client_nodes = 1 THEN ' node x ' ELSE ' nodes x ' END || client_links || ' x '
           || client_link_gbit_s || ' Gbit/s' AS stated
FROM stated WHERE client_nodes > 0 AND client_links > 0 AND client_link_gbit_s > 0
UNION ALL
SELECT unit, id, 'server links', servers * server_links * server_link_gbit_s * 1e9 / 8 / 2^30,
       servers || ' servers x ' || server_links || ' x ' || server_link_gbit_s || ' Gbit/s'
FROM stated WHERE servers > 0 AND server_links > 0 AND server_link_gbit_s > 0
UNION ALL
SELECT unit, id, 'drives', drives * drive_gb_s * 1e9 / 2^30, drives || ' drives x ' || drive_gb_s || ' GB/s'
FROM stated WHERE drives > 0 AND drive_gb_s > 0;

-- Each IO500 run's limits (setup_limits).
CREATE OR REPLACE VIEW io500_run_limits AS
SELECT id AS run_id, limit_name, gib_s, stated FROM setup_limits WHERE unit = 'IO500 run';

-- Each IO500 run's or log's least limit (setup_limits): the binding one, the most its setup lets it move.
CREATE OR REPLACE VIEW setup_bounds AS
SELECT unit, id, limit_name AS binding, gib_s AS bound_gib_s, stated FROM setup_limits
QUALIFY row_number() OVER (PARTITION BY unit, id ORDER BY gib_s, limit_name) = 1;

-- Each fio, IOR and mdtest log's least limit (setup_bounds).
CREATE OR REPLACE VIEW log_bounds AS
SELECT id AS source_id, binding, bound_gib_s, stated FROM setup_bounds WHERE unit = 'log';

-- Each bandwidth phase against the least limit its run's setup states (the binding one): its share of what the
-- setup allows at most.
CREATE OR REPLACE VIEW io500_run_bounds AS
SELECT p.run_id, p.phase, p.value AS gib_s, b.bound_gib_s, b.binding, b.stated, p.value / b.bound_gib_s AS share
FROM io500_run_phases p JOIN setup_bounds b ON b.unit = 'IO500 run' AND b.id = p.run_id
WHERE p.unit = 'GiB/s' AND p.value > 0;

-- The validity audit: one coded flag a finding, with its rule. A flagged run stays in every table; chapters
-- keep it out of "best run" examples and say which flags a comparison's runs carry.
--   RANDOM_READ_CACHED  random 4 KiB reads at least as fast as its sequential easy read: storage serves small
--                       random reads slower than large sequential ones, so these came from a cache (IO500 issue
--                       #109 compares ior-rnd4K-easy-read with ior-easy-read); the phase under both its names:
--                       ior-rnd4K-easy-read (standard mode from ISC22), ior-rnd4K-read (SC21's extended mode)
--   CHANGED_DURING_RUN  its scripts change the file system's settings or stop its processes while it runs
--   UNPROTECTED         its DAOS object classes keep one copy of the data (S1, SX): no replication, no erasure code
--   ABOVE_LINKS         a bandwidth phase above the least limit its setup states (io500_run_bounds): data that
--                       did not cross the links, as from a client's cache (IO500 issue #88)
--   ABOVE_CLIENT_LINK   where the files state not both a client's links and their rate: a bandwidth phase that needs
--                       more per client node than its links move at most (setups.client_link_bound_gbit_s: the ports
--                       its mmlsconfig's verbsPorts or questionnaire name, none assumed, times the rate stated, else
--                       its data servers' network's, else the fastest client port of the run's date)
--   IMPLAUSIBLE         a phase above one item per cycle of a 5 GHz core per process (io500_implausible_phases)
CREATE OR REPLACE VIEW io500_run_flags AS
SELECT x.run_id, 'RANDOM_READ_CACHED' AS code,
       x.phase || ' ' || printf('%.4g', x.value) || ' GiB/s is ' || printf('%.0f', 100 * x.value / e.value)
           || ' % of ior-easy-read ' || printf('%.4g', e.value) || ' GiB/s' AS detail,
       'result files' AS source
FROM io500_run_phases x JOIN io500_run_phases e ON e.run_id = x.run_id AND e.phase = 'ior-easy-read'
WHERE x.phase IN ('ior-rnd4K-easy-read', 'ior-rnd4K-read') AND e.value > 0 AND x.value >= e.value
UNION ALL
SELECT run_id, 'CHANGED_DURING_RUN', value, source FROM io500_run_setup WHERE field = 'changed_during_run'
UNION ALL
SELECT run_id, 'UNPROTECTED', 'DAOS object classes ' || o.value, o.source
FROM io500_run_setup p JOIN io500_run_setup o USING (run_id)
WHERE p.field = 'protection' AND p.value = 'none' AND o.field = 'object_classes'
UNION ALL
SELECT run_id, 'ABOVE_LINKS',
       phase || ' ' || printf('%.4g', gib_s) || ' GiB/s is ' || printf('%.0f', 100 * share) || ' % of its ' || binding
           || ' (' || stated || ')', 'setup record'
FROM io500_run_bounds WHERE share > 1
UNION ALL
SELECT p.run_id, 'ABOVE_CLIENT_LINK',
       p.phase || ' ' || printf('%.4g', p.value / s.client_nodes) || ' GiB/s a client node ('
           || printf('%.0f', p.value * 2^30 * 8 / 1e9 / s.client_nodes) || ' Gbit/s) is above its links'' '
           || printf('%g', s.client_link_bound_gbit_s) || ' Gbit/s: ' || b.source, 'setup record'
FROM io500_run_phases p JOIN setups s USING (run_id)
JOIN io500_run_setup b ON b.run_id = p.run_id AND b.field = 'client_link_bound_gbit_s'
WHERE p.unit = 'GiB/s' AND s.client_nodes > 0
  AND p.value * 2^30 * 8 / 1e9 / s.client_nodes > s.client_link_bound_gbit_s
UNION ALL
SELECT run_id, 'IMPLAUSIBLE', reason, 'result files' FROM io500_implausible_phases;

-- How many IO500 runs (each once: io500_runs.counted) state each setup field, and the kinds of source that say so
-- (the part of io500_run_setup.source before its first ':', ';' or '('), each with the runs it states the field of,
-- most first: "IO500 site record: 153; inferred: 89".
CREATE OR REPLACE VIEW setup_fields_stated AS
WITH stated AS (
    SELECT s.field, s.run_id, trim(regexp_extract(s.source, '^[^:;(]*')) AS kind
    FROM io500_run_setup s JOIN io500_runs r USING (run_id)
    WHERE r.counted
), kinds AS (
    SELECT field, kind, count(DISTINCT run_id) AS runs FROM stated GROUP BY field, kind
)
SELECT field, (SELECT count(DISTINCT run_id) FROM stated s WHERE s.field = k.field) AS runs,
       string_agg(kind || ': ' || runs, '; ' ORDER BY runs DESC, kind) AS sources
FROM kinds k
GROUP BY field;

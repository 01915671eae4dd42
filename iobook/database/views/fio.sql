-- fio: public views over the raw_fio_* tables written by iobook/parsers/fio.py.
-- Units are those the column names say: bytes, bytes/s, IO/s, nanoseconds, percent.
-- job_id = source_id * 1000000 + job_index (job_index: 0-based order of the job in its file).

-- One row per job (JSON/json+, normal text, terse). rw, bs, iodepth, ioengine come from the job's
-- options (JSON) or its "name: (g=N): rw=..." line (normal text); terse output does not carry them.
-- numjobs: the option (JSON) or "jobs=N" of the result block (normal text). runtime_s: the longest
-- measured run time over the job's directions; job_runtime_s: the job's own (JSON "job_runtime", JSON only), of
-- which usr_cpu_pct and sys_cpu_pct are percentages (a verify read outlasts its read direction). error: fio's
-- errno for the job (0 = none).
-- size and options (the job's options over the global ones, as sorted JSON) only from JSON output.
-- started: when fio started the run, from its JSON's own "timestamp_ms"/"timestamp" (UTC), never a file time.
-- parameters_stated: whether the output states the job's options (JSON; normal text's "rw=..." header line);
-- terse output states none, so its rw, bs, ... are unknown, never defaults. operations: the directions the job
-- did I/O in ('read', 'write', 'trim', joined by '+' in that order). unstated_key: for a job whose output
-- states no options, what it carries to tell it from another job: its name and operations, e.g.
-- 'randread-4k (read)' (null when parameters_stated): a configuration of such jobs is this, not 'read'.
CREATE OR REPLACE VIEW fio_jobs AS
WITH ops AS (
    SELECT source_id, job_index,
           string_agg(direction, '+' ORDER BY list_position(['read', 'write', 'trim'], direction)) AS operations
    FROM raw_fio_io GROUP BY ALL
)
SELECT source_id * 1000000 + job_index AS job_id, source_id, job_index, format, version, jobname,
       groupid, rw, bs, iodepth, numjobs, direct, ioengine, runtime_s, job_runtime_s, error,
       usr_cpu_pct, sys_cpu_pct, bw_log, iops_log, lat_log, size, options,
       make_timestamp(started_unix_ms * 1000) AS started,
       (options IS NOT NULL OR rw IS NOT NULL) AS parameters_stated,
       ops.operations,
       CASE WHEN options IS NULL AND rw IS NULL THEN jobname || ' (' || coalesce(ops.operations, 'no I/O') || ')'
       END AS unstated_key
FROM raw_fio_jobs
LEFT JOIN ops USING (source_id, job_index);

-- One row per job and direction that did I/O ('read' | 'write' | 'trim').
-- lat_mean_ns is fio's total latency (lat = slat + clat); lat_p50/p99/p999/p9999_ns are percentiles of the
-- completion latency (clat), which is what fio computes percentiles on by default; a job run with
-- lat_percentiles=1 reports them on total latency instead, and those are used when clat has none.
-- usr_cpu_pct / sys_cpu_pct are the job's CPU use, repeated on each of its directions.
CREATE OR REPLACE VIEW fio_io AS
WITH pct AS (
    SELECT source_id, job_index, direction,
           coalesce(max(value_ns) FILTER (latency = 'clat' AND percentile = 50),
                    max(value_ns) FILTER (latency = 'lat' AND percentile = 50)) AS p50,
           coalesce(max(value_ns) FILTER (latency = 'clat' AND percentile = 99),
                    max(value_ns) FILTER (latency = 'lat' AND percentile = 99)) AS p99,
           coalesce(max(value_ns) FILTER (latency = 'clat' AND percentile = 99.9),
                    max(value_ns) FILTER (latency = 'lat' AND percentile = 99.9)) AS p999,
           coalesce(max(value_ns) FILTER (latency = 'clat' AND percentile = 99.99),
                    max(value_ns) FILTER (latency = 'lat' AND percentile = 99.99)) AS p9999
    FROM raw_fio_percentiles
    GROUP BY ALL
)
SELECT io.source_id * 1000000 + io.job_index AS job_id, io.direction, io.io_bytes, io.bw_bytes_s,
       io.iops, io.runtime_ms, io.lat_mean_ns, pct.p50 AS lat_p50_ns, pct.p99 AS lat_p99_ns,
       pct.p999 AS lat_p999_ns, pct.p9999 AS lat_p9999_ns, io.clat_mean_ns, io.slat_mean_ns, io.lat_min_ns, io.lat_max_ns,
       j.usr_cpu_pct, j.sys_cpu_pct
FROM raw_fio_io io
JOIN raw_fio_jobs j USING (source_id, job_index)
LEFT JOIN pct USING (source_id, job_index, direction);

-- Every percentile fio printed (clat, or lat with lat_percentiles=1), in nanoseconds.
CREATE OR REPLACE VIEW fio_percentiles AS
SELECT source_id * 1000000 + job_index AS job_id, direction, latency, percentile, value_ns
FROM raw_fio_percentiles;

-- json+ completion-latency histogram: how many I/Os completed in the bin starting at latency_ns.
CREATE OR REPLACE VIEW fio_clat_bins AS
SELECT source_id * 1000000 + job_index AS job_id, direction, latency_ns, count
FROM raw_fio_clat_bins;

-- "Run status group N" lines of the normal output (aggrb= in fio 2.x, bw= in 3.x).
CREATE OR REPLACE VIEW fio_group_status AS
SELECT source_id, groupid, direction, io_bytes, bw_bytes_s, run_min_ms, run_max_ms
FROM raw_fio_group_status;

-- fio's bw/iops/lat logs, one row per line. Their numbers cannot tell a bw log from a lat log, so
-- kind comes from the name fio gives the file, <prefix>_<kind>[.<job number>].log, else 'unknown'.
-- value is as logged: bw in KiB/s, iops in IO/s (1 per line when not averaged), latencies in ns
-- (fio >= 3.0; fio 2.x logged usec): value_unit says which.
-- job_id links a log to the job that wrote it: a fio JSON in the same folder whose job names the
-- log's prefix in write_bw_log / write_iops_log / write_lat_log, and whose position in that JSON
-- matches the log's job number (fio numbers jobs from 1). Otherwise job_id is null.
CREATE OR REPLACE VIEW fio_series AS
WITH log_files AS (  -- per file, not per log line: the regular expressions ran on every line (0.45 -> 0.1 s a query)
    SELECT source_id,
           regexp_extract(path, '^(.*)/[^/]*$', 1) AS folder,
           regexp_extract(path, '/([^/]*)_(?:bw|iops|clat|slat|lat)(?:\.\d+)?\.log$', 1) AS prefix,
           nullif(regexp_extract(path, '_(bw|iops|clat|slat|lat)(?:\.\d+)?\.log$', 1), '') AS name_kind,
           try_cast(nullif(regexp_extract(path, '_(?:bw|iops|clat|slat|lat)\.(\d+)\.log$', 1), '')
                    AS INTEGER) AS job_number
    FROM sources
    WHERE source_id IN (SELECT source_id FROM raw_fio_series)
),
jobs AS (
    SELECT j.*, regexp_extract(s.path, '^(.*)/[^/]*$', 1) AS folder
    FROM raw_fio_jobs j
    JOIN sources s USING (source_id)
),
links AS (
    SELECT l.source_id, l.name_kind, j.source_id * 1000000 + j.job_index AS job_id, j.version
    FROM log_files l
    LEFT JOIN jobs j
      ON j.folder = l.folder
     AND l.prefix = regexp_extract(CASE l.name_kind WHEN 'bw' THEN j.bw_log WHEN 'iops' THEN j.iops_log
                                                    ELSE j.lat_log END, '([^/]*)$', 1)
     AND coalesce(l.job_number, 1) = j.job_index + 1
)
SELECT k.job_id, r.source_id,
       coalesce(k.name_kind, 'unknown') AS kind, r.t_ms, r.value,
       CASE r.direction_code WHEN 0 THEN 'read' WHEN 1 THEN 'write' WHEN 2 THEN 'trim' END AS direction,
       r.bs, r.offset_bytes,
       CASE WHEN k.name_kind = 'bw' THEN 'KiB/s'
            WHEN k.name_kind = 'iops' THEN 'IO/s'
            WHEN k.name_kind IN ('clat', 'slat', 'lat') THEN
                 CASE WHEN k.version LIKE '2.%' THEN 'us' ELSE 'ns' END
       END AS value_unit
FROM raw_fio_series r
JOIN links k USING (source_id)

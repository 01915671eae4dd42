-- A fio, IOR or mdtest log stored more than once (the same bytes: a folder copied, a log filed twice): each copy
-- but the last ingested, once, with that last copy (same_as_source_id). Such a log prints the run's own measured
-- values (and, but for fio's terse output, its start time), so two runs do not write the same bytes: a copy is
-- the same run, and the chapters that count these runs leave the copies out. Not for a monitor's or a listing's
-- output (df, vmstat), which two moments can print alike; IO500 runs: io500_duplicate_runs.
-- One window per content, as io500_duplicate_runs: a self-join grew with the square of the copies.
CREATE OR REPLACE VIEW duplicate_logs AS
WITH copies AS (
    SELECT source_id, path, tool, sha256,
           last_value(source_id) OVER last_ingested AS same_as_source_id,
           last_value(path) OVER last_ingested AS same_as_path
    FROM sources WHERE status = 'ok' AND tool IN ('fio', 'ior', 'mdtest')
    WINDOW last_ingested AS (PARTITION BY sha256 ORDER BY source_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
)
SELECT source_id, same_as_source_id, path, same_as_path, tool, sha256
FROM copies WHERE source_id <> same_as_source_id;

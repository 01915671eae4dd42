-- mdtest: public views over raw_mdtest_summaries, raw_mdtest_results and raw_mdtest_ranks
-- (iobook/parsers/mdtest.py). Units are in the column names or in `unit`.

-- One row per summary: one mdtest test's SUMMARY tables (its rate table and, when printed, its
-- time table). A log with several runs (concatenated logs) or task scaling (-f/-l/-s) has several.
-- mdtest_id = source_id * 1000000 + summary_index (a log has far fewer than a million summaries).
CREATE OR REPLACE VIEW mdtest_runs AS
SELECT
    s.source_id * 1000000 + s.summary_index AS mdtest_id,
    s.source_id,
    s.summary_index,
    s.version,                              -- e.g. '1.9.3', '3.4.0+dev', '4.1.0+dev'
    s.tasks,                                -- tasks of this test ("N tasks, M files")
    s.items,                                -- files and/or directories over all tasks
    s.iterations,
    s.command,                              -- as printed after "Command line used:"
    s.item_kind,                            -- 'files', 'directories' or 'files/directories'
    s.launched_tasks,                       -- MPI tasks of the run (more than tasks with -f/-l/-s)
    s.nodes,
    s.nodemap_ranks,                        -- "Nodemap:" ranks on rank 0's node (NULL: not printed)
    s.nodemap_stride,                       -- their constant rank gap: 1 = filled in order, nodes = round-robin
    TRY_CAST(s.started_at AS TIMESTAMP) AS started_at,
    s.stonewall_items_min,                  -- "Continue stonewall hit": items per rank at stonewall
    s.stonewall_items_max,
    s.stonewall_items_avg,
    s.line AS summary_line,                 -- 1-based line of its first SUMMARY header
    src.path
FROM raw_mdtest_summaries s
JOIN sources src USING (source_id);

-- One row per SUMMARY table row. table_kind 'rate': ops/s; 'time': seconds. mdtest prints the
-- phase's wall-clock seconds in every time table, whatever its label says ("time (in ops/sec)"
-- in 3.4/4.0, "time (in ms/op)" in 4.1, kept in printed_unit); no value is rescaled.
-- max/min/mean/stddev are over iterations (mdtest 3.3 with one iteration: over ranks);
-- rank_* only with --showRankStatistics. NA prints (stonewall rows) are NULL.
-- stddev_kind: the formula of the printed stddev by the version the log states: 'population' (divided by n)
-- for 1.x to 3.x (3.x over every rank's value of every iteration), 'sample' (divided by n - 1, over the
-- iterations; 0.000 for one) from 4.1 on; NULL for 4.0 and a log without a version (not confirmed on a log).
-- failed: the test printed a line saying this operation failed ("WARNING: unable to remove directory ...",
-- "error could not create directory ...", "ERROR: verifying the data on read ..."): the phase failed and its
-- values are no rate nor time of it (iobook/parsers/mdtest.py, FAILURE_LINE); failure is the first such line,
-- failure_line its line, failure_lines how many.
CREATE OR REPLACE VIEW mdtest_results AS
SELECT
    r.source_id * 1000000 + r.summary_index AS mdtest_id,
    r.table_kind,
    r.operation,                            -- as printed: 'File creation', 'Tree removal', ...
    r.max,
    r.min,
    r.mean,
    r.stddev,
    CASE WHEN regexp_matches(s.version, '^[123]\.') THEN 'population'
         WHEN regexp_matches(s.version, '^(4\.[1-9]|[5-9]\.|[1-9][0-9]+\.)') THEN 'sample' END AS stddev_kind,
    CASE r.table_kind WHEN 'rate' THEN 'ops/s' ELSE 's' END AS unit,
    r.printed_unit,
    r.rank_max,
    r.rank_min,
    r.rank_mean,
    r.operation LIKE '%(stonewall)' AS stonewall,
    r.line,
    r.failure_line IS NOT NULL AS failed,
    r.failure,
    r.failure_line,
    r.failure_lines
FROM raw_mdtest_results r
JOIN raw_mdtest_summaries s USING (source_id, summary_index);

-- One row per (row, measured operation) of a --saveRankPerformanceDetails CSV: the 'all' row
-- (all_ranks, rank NULL) is mdtest's aggregate, the others one MPI rank each.
CREATE OR REPLACE VIEW mdtest_ranks AS
SELECT
    k.source_id,
    k.rank,
    k.all_ranks,
    k.items,
    k.operation,
    k.rate AS rate_ops_per_s,
    k.time AS time_s,
    src.path
FROM raw_mdtest_ranks k
JOIN sources src USING (source_id);

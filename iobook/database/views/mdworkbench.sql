-- md-workbench: public views over raw_mdworkbench_runs, raw_mdworkbench_phases and raw_mdworkbench_latencies
-- (iobook/parsers/mdworkbench.py): IO500's extended-mode phases mdworkbench-create (md-workbench's
-- precreate), mdworkbench-bench (benchmark) and mdworkbench-delete (cleanup). Units in the column names.

-- One row per phase line: the line over all processes (rank NULL) and, with --process-reports, one per
-- process. A file of several iterations (-R) has a line per iteration, in order of line.
CREATE OR REPLACE VIEW mdworkbench_phases AS
SELECT
    p.source_id,
    p.phase,                                -- 'precreate', 'benchmark' or 'cleanup'
    p.rank,
    p.max_s,                                -- the slowest process's time
    p.min_s, p.mean_s, p.balance_pct, p.stddev_s,
    p.rate_iops,                            -- the IO500 phase's score is this / 1000 (kIOPS)
    p.rate_obj_s, p.rate_dset_s, p.objects, p.dsets, p.tp_mib_s,
    p.op_max_s,                             -- the longest single operation
    p.errors,
    p.stonewall_iterations,
    r.version,
    r.total_objects,
    r.workingset_mib,
    TRY_CAST(r.started AS TIMESTAMP) AS started,
    r.command,
    p.line,
    s.path
FROM raw_mdworkbench_phases p
JOIN sources s USING (source_id)
ASOF LEFT JOIN raw_mdworkbench_runs r ON r.source_id = p.source_id AND p.line >= r.line;

-- One row per operation timed on a phase line: seven latencies in seconds, as md-workbench prints them.
CREATE OR REPLACE VIEW mdworkbench_latencies AS
SELECT l.source_id, l.phase, l.rank, l.operation, l.min_s, l.q1_s, l.median_s, l.q3_s, l.q90_s, l.q99_s, l.max_s,
       l.line
FROM raw_mdworkbench_latencies l;

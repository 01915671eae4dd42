-- DLIO's log beside each DLIO run of your own (view dlio_runs): the runs, those whose log printed its averaged
-- metrics, those where these agree with summary.json (view dlio_logs), and how far a block's AU in the log (rank 0's,
-- view dlio_log_blocks) lies from summary.json's AU of the block's epoch (the mean over every rank), in points.
WITH logged AS (
    SELECT r.source_id, l.source_id AS log_id, l.agrees_with_summary
    FROM dlio_runs r LEFT JOIN dlio_logs l ON l.summary_source_id = r.source_id AND l.metric_line IS NOT NULL
), blocks AS (
    SELECT max(abs(b.rank0_au_pct - e.au_pct)) AS max_gap, count(*) AS blocks
    FROM dlio_runs r
    JOIN dlio_logs l ON l.summary_source_id = r.source_id
    JOIN dlio_log_blocks b ON b.source_id = l.source_id
    JOIN raw_dlio_summary_epochs e ON e.source_id = r.source_id AND e.epoch = b.epoch
)
SELECT count(DISTINCT source_id) AS runs, count(DISTINCT log_id) AS logged,
       count(DISTINCT log_id) FILTER (agrees_with_summary) AS agree,
       (SELECT blocks FROM blocks) AS blocks, (SELECT max_gap FROM blocks) AS max_au_gap
FROM logged

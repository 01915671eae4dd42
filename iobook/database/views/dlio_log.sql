-- DLIO's own log (dlio.log, iobook/parsers/dlio_log.py): what each log says the run did, whether it finished, and
-- whether its printed metrics agree with the run's summary.json. A log's run is the summary.json in the log's folder
-- (DLIO writes both to its output folder); its config is configs/config.yaml or .hydra/config.yaml in that folder.
--
-- dlio_logs, one row per log. kind: 'training', or 'data generation' for a log of a data-generation step (a config
-- with workflow.train false, or without a config a log that generated data and trained not). status: a training
-- log with a summary.json beside it 'finished'; without one 'unfinished' (DLIO writes summary.json last: its run
-- stopped first, is no run and has no rate; reason says how far it got); a data generation 'data generated' when it
-- logged "Generation done", else 'unfinished'. agrees_with_summary: whether every value the log states of the run
-- equals its summary.json's, to the log's printing: the [METRIC] block's four decimals (within half a unit of the
-- last, 0.00005) for AU, samples/s and MB/s and their stdevs; exactly for the accelerators, DLIO's AU verdict and
-- the processes; within 10^-9 relative for the data per host and the sum of the hosts' memory, which DLIO prints in
-- full. NULL where the log has no [METRIC] block or no summary.json beside it; disagreements names each value that
-- differs, with both. Units as DLIO writes them: MB = 2^20 bytes, GB = 2^30 bytes; times the host's local time.
CREATE OR REPLACE VIEW dlio_logs AS
WITH logs AS (
    SELECT l.*, s.path, regexp_replace(s.path, '/[^/]*$', '') AS folder
    FROM raw_dlio_logs l JOIN sources s USING (source_id)
), summaries AS (
    SELECT regexp_replace(s.path, '/[^/]*$', '') AS folder, s.path AS summary_path, m.*,
           (SELECT sum(h.memory_gb) FROM raw_dlio_summary_hosts h WHERE h.source_id = m.source_id) AS summary_memory_gb
    FROM raw_dlio_summaries m JOIN sources s USING (source_id)
), configs AS (
    SELECT regexp_replace(s.path, '/(configs|\.hydra)/[^/]*$', '') AS folder, c.train
    FROM raw_dlio_configs c JOIN sources s USING (source_id)
), joined AS (
    SELECT l.*, m.source_id AS summary_source_id, m.summary_path, c.train AS config_train,
           m.num_accelerators, m.num_hosts, m.au_mean_pct, m.au_stdev_pct, m.samples_per_s AS summary_samples_per_s,
           m.samples_per_s_stdev AS summary_samples_per_s_stdev, m.mb_per_s AS summary_mb_per_s,
           m.mb_per_s_stdev AS summary_mb_per_s_stdev, m.au_expectation, m.data_size_per_host_gb, m.summary_memory_gb,
           CASE WHEN l.training_started OR l.metric_line IS NOT NULL OR m.source_id IS NOT NULL THEN 'training'
                WHEN NOT c.train OR (c.train IS NULL AND l.generation_started) THEN 'data generation'
                ELSE 'training' END AS kind
    FROM logs l
    LEFT JOIN summaries m USING (folder)
    LEFT JOIN configs c USING (folder)
), checked AS (
    SELECT j.*,
           concat_ws('; ',
               CASE WHEN j.metric_accelerators IS DISTINCT FROM j.num_accelerators
                    THEN format('accelerators: log {}, summary {}', j.metric_accelerators, j.num_accelerators) END,
               CASE WHEN j.processes IS DISTINCT FROM j.num_accelerators
                    THEN format('processes: log {}, summary accelerators {}', j.processes, j.num_accelerators) END,
               CASE WHEN NOT coalesce(abs(j.metric_au_mean_pct - j.au_mean_pct) <= 0.00005 + 1e-9, false)
                    THEN format('AU: log {}, summary {}', j.metric_au_mean_pct, j.au_mean_pct) END,
               CASE WHEN NOT coalesce(abs(j.metric_au_stdev_pct - j.au_stdev_pct) <= 0.00005 + 1e-9, false)
                    THEN format('AU stdev: log {}, summary {}', j.metric_au_stdev_pct, j.au_stdev_pct) END,
               CASE WHEN NOT coalesce(abs(j.metric_samples_per_s - j.summary_samples_per_s) <= 0.00005 + 1e-9, false)
                    THEN format('samples/s: log {}, summary {}', j.metric_samples_per_s, j.summary_samples_per_s) END,
               CASE WHEN NOT coalesce(abs(j.metric_samples_per_s_stdev - j.summary_samples_per_s_stdev)
                                      <= 0.00005 + 1e-9, false)
                    THEN format('samples/s stdev: log {}, summary {}', j.metric_samples_per_s_stdev,
                                j.summary_samples_per_s_stdev) END,
               CASE WHEN NOT coalesce(abs(j.metric_mb_per_s - j.summary_mb_per_s) <= 0.00005 + 1e-9, false)
                    THEN format('MB/s: log {}, summary {}', j.metric_mb_per_s, j.summary_mb_per_s) END,
               CASE WHEN NOT coalesce(abs(j.metric_mb_per_s_stdev - j.summary_mb_per_s_stdev) <= 0.00005 + 1e-9, false)
                    THEN format('MB/s stdev: log {}, summary {}', j.metric_mb_per_s_stdev, j.summary_mb_per_s_stdev)
               END,
               CASE WHEN j.metric_au_expectation IS DISTINCT FROM j.au_expectation
                    THEN format('AU verdict: log {}, summary {}', j.metric_au_expectation, j.au_expectation) END,
               CASE WHEN NOT coalesce(abs(j.data_per_host_gb - j.data_size_per_host_gb)
                                      <= 1e-9 * abs(j.data_size_per_host_gb), false)
                    THEN format('data per host: log {} GB, summary {} GB', j.data_per_host_gb,
                                j.data_size_per_host_gb) END,
               -- some DLIO versions print only the first host's memory: compared where the log lists them all
               CASE WHEN j.hosts_listed = j.num_hosts
                         AND NOT coalesce(abs(j.hosts_memory_gb - j.summary_memory_gb)
                                          <= 1e-9 * abs(j.summary_memory_gb), false)
                    THEN format('hosts'' memory: log {} GB, summary {} GB', j.hosts_memory_gb, j.summary_memory_gb)
               END) AS differences
    FROM joined j
)
SELECT c.source_id, c.path, c.kind,
       CASE WHEN c.kind = 'training' AND c.summary_source_id IS NOT NULL THEN 'finished'
            WHEN c.kind = 'data generation' AND c.generation_done THEN 'data generated'
            ELSE 'unfinished' END AS status,
       CASE WHEN c.kind = 'training' AND c.summary_source_id IS NULL
            THEN format('training stopped before DLIO wrote summary.json: the log ends at line {}{}, after {} ended '
                        'epoch{}{}', c.lines, coalesce(' (' || c.last_time || ')', ''), c.epochs_ended,
                        CASE WHEN c.epochs_ended = 1 THEN '' ELSE 's' END,
                        CASE WHEN c.metric_line IS NOT NULL THEN ' and its averaged metrics (line '
                             || c.metric_line || ')' ELSE '' END)
            WHEN c.kind = 'data generation' AND NOT c.generation_done
            THEN format('data generation stopped: no "Generation done"; the log ends at line {}{}', c.lines,
                        coalesce(' (' || c.last_time || ')', ''))
       END AS reason,
       c.summary_source_id, c.summary_path, c.config_train,
       TRY_CAST(c.started AS TIMESTAMP) AS started, TRY_CAST(c.last_time AS TIMESTAMP) AS last_time, c.lines,
       c.processes, c.data_per_host_gb, c.hosts_memory_gb, c.hosts_listed, c.generation_started, c.generation_done,
       c.training_started, c.epochs_ended, c.outputs_saved, c.metric_line, c.metric_accelerators,
       c.metric_au_mean_pct, c.metric_au_stdev_pct, c.metric_samples_per_s, c.metric_samples_per_s_stdev,
       c.metric_mb_per_s, c.metric_mb_per_s_stdev, c.metric_au_expectation,
       CASE WHEN c.metric_line IS NOT NULL AND c.summary_source_id IS NOT NULL THEN c.differences = '' END
           AS agrees_with_summary,
       CASE WHEN c.metric_line IS NOT NULL AND c.summary_source_id IS NOT NULL THEN nullif(c.differences, '') END
           AS disagreements
FROM checked c;

-- dlio_log_blocks, one row per training block a log states (DLIO's epochs are split into blocks by checkpoints): its
-- steps and seconds ("Ending block"), and its AU (%) and samples/s, which are rank 0's (its throughput times the
-- ranks): summary.json holds each epoch's AU averaged over every rank, no block's, so a block's AU is the log's
-- alone and differs from the summary's for the same epoch. With the epoch's steps expected and completed and its
-- seconds ("Starting epoch", "Ending epoch"; NULL where the log ends inside the epoch).
CREATE OR REPLACE VIEW dlio_log_blocks AS
SELECT s.source_id, s.path, b.epoch, b.block, b.line, b.steps, b.duration_s, b.au_pct AS rank0_au_pct,
       b.samples_per_s AS rank0_samples_per_s_x_ranks, e.steps_expected AS epoch_steps_expected,
       e.steps AS epoch_steps, e.duration_s AS epoch_duration_s
FROM raw_dlio_log_blocks b JOIN sources s USING (source_id)
LEFT JOIN raw_dlio_log_epochs e ON e.source_id = b.source_id AND e.epoch = b.epoch;

-- Runs made by scripts/collect_*.py: one per manifest.json; every other file under the manifest's folder
-- belongs to that run (linked by path, so logs parsed by any parser join their run and labels).

CREATE OR REPLACE VIEW runs AS
SELECT r.run_id,
       r.study,
       regexp_replace(s.path, '/[^/]*$', '') AS run_dir,
       r.hostname AS host,
       CAST(replace(r.started_utc, 'Z', '') AS TIMESTAMP) AS started_utc,
       CAST(replace(r.finished_utc, 'Z', '') AS TIMESTAMP) AS finished_utc,
       r.status,
       r.cpu_model,
       r.cores,
       r.memory_bytes / 1024.0 ^ 3 AS memory_gib,
       r.kernel,
       r.load_avg_1m,
       r.load_avg_5m,
       r.load_avg_15m,
       r.target_dir,
       r.target_filesystem,
       r.target_device,
       r.collector,
       r.source_id AS manifest_source_id
FROM raw_manifest_runs r
JOIN sources s USING (source_id);

-- Every ingested file that lies under a run's folder.
CREATE OR REPLACE VIEW run_sources AS
SELECT s.source_id, r.run_id, substr(s.path, length(r.run_dir) + 2) AS file
FROM sources s
JOIN runs r ON starts_with(s.path, r.run_dir || '/');

-- Labels of each output file (the run's labels merged with its step's), with the file's source_id
-- when it was ingested, so a chapter can group fio_jobs or monitor_series by any label.
CREATE OR REPLACE VIEW run_labels AS
SELECT l.run_id, l.file, rs.source_id, l.step_index, l.key, l.value
FROM raw_manifest_labels l
JOIN runs r ON r.manifest_source_id = l.source_id
LEFT JOIN run_sources rs ON rs.run_id = l.run_id AND rs.file = l.file;

CREATE OR REPLACE VIEW run_steps AS
SELECT s.run_id, s.step_index, s.name, s.command,
       CAST(replace(s.started_utc, 'Z', '') AS TIMESTAMP) AS started_utc,
       CAST(replace(s.finished_utc, 'Z', '') AS TIMESTAMP) AS finished_utc,
       s.seconds, s.exit_code
FROM raw_manifest_steps s
JOIN runs r ON r.manifest_source_id = s.source_id;

CREATE OR REPLACE VIEW run_facts AS
SELECT f.run_id, f.key, f.value
FROM raw_manifest_facts f
JOIN runs r ON r.manifest_source_id = f.source_id;

CREATE OR REPLACE VIEW monitor_series AS
SELECT m.source_id, rs.run_id, m.tool, m.t_s, m.instance, m.metric, m.unit, m.value
FROM raw_monitor_samples m
LEFT JOIN run_sources rs USING (source_id);

CREATE OR REPLACE VIEW perf_counters AS
SELECT p.source_id, rs.run_id, p.event, p.value, p.unit, p.status, p.running_pct
FROM raw_perf_counters p
LEFT JOIN run_sources rs USING (source_id);

-- Share of all CPUs busy (usr + nice + sys + irq + soft of mpstat's 'all' row, %) per mpstat sample of a
-- collector step: how loaded the machine was before and while the step's tool ran.
CREATE OR REPLACE VIEW step_cpu_busy AS
SELECT l.run_id, l.step_index, m.source_id, m.t_s,
       sum(m.value) FILTER (m.metric IN ('usr', 'nice', 'sys', 'irq', 'soft')) AS busy_pct
FROM monitor_series m
JOIN run_labels l ON l.source_id = m.source_id AND l.key = 'phase'
WHERE m.tool = 'mpstat' AND m.instance = 'all'
GROUP BY ALL;

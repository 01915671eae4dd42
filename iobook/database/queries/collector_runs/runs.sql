-- Every collector run of one study (parameter: the manifest's study), one row each, ordered by run folder.
SELECT regexp_extract(run_dir, '[^/]*$') AS run_folder, run_id, run_dir, host, cpu_model, cores,
       memory_gib, kernel, target_filesystem, target_device, load_avg_1m, load_avg_5m, load_avg_15m,
       status, manifest_source_id
FROM runs WHERE study = ? ORDER BY run_folder, run_id

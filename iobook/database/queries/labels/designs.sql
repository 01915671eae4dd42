-- Each file's tool and version, and the folder of the collector run whose manifest lists it (parameter: source ids).
SELECT s.source_id, s.tool, s.tool_version, any_value(regexp_extract(r.run_dir, '[^/]*$')) AS run_folder
FROM sources s LEFT JOIN run_labels l USING (source_id) LEFT JOIN runs r USING (run_id)
WHERE list_contains(?, s.source_id) GROUP BY ALL

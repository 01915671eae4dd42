-- Per `btrfs filesystem usage -b` or `df -B1` file given (source ids), in bytes: btrfs's Overall "Used" (data and
-- metadata copies), its data and its metadata block groups' Used, and df's used.
SELECT source_id,
       max(value) FILTER (tool = 'btrfs-usage' AND metric = 'Used') AS used_bytes,
       sum(value) FILTER (tool = 'btrfs-usage' AND metric LIKE 'Data,% Used') AS data_used_bytes,
       sum(value) FILTER (tool = 'btrfs-usage' AND metric LIKE 'Metadata,% Used') AS metadata_used_bytes,
       max(value) FILTER (tool = 'df' AND metric = 'used') AS df_used_bytes
FROM monitor_series
WHERE list_contains(?, source_id)
GROUP BY source_id

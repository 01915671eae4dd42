-- The columns of a view (parameter: its name) that hold a source_id (source_id, csv_source_id,
-- manifest_source_id, ...), in order.
SELECT column_name
FROM information_schema.columns
WHERE table_name = ? AND column_name LIKE '%source_id'
ORDER BY ordinal_position

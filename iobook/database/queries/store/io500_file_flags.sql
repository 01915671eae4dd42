-- Every flag of every IO500 summary file, in line order.
SELECT * FROM raw_io500_flags ORDER BY source_id, line

-- Every phase of every IO500 summary file, in the order each file prints them.
SELECT * FROM raw_io500_phases ORDER BY source_id, position

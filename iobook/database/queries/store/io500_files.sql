-- Every IO500 summary file read whole, with its path and hash, in source order.
SELECT f.*, s.path, s.sha256 FROM raw_io500_files f JOIN sources s USING (source_id)
WHERE s.status = 'ok' ORDER BY f.source_id

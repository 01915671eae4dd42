-- The files of this build (not those gone from the folders ingested) as the Parquet export's folder name digests
-- them: path, sha256 and outcome, by path.
SELECT path, sha256, status FROM sources WHERE status <> 'gone' ORDER BY path

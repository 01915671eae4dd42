-- Entries seen, and files read (new, as a local ingest counts them: not the entries it refused).
SELECT count(*), count(*) FILTER (NOT (status = 'skipped' AND sha256 = '')) FROM sources

-- Every shell script and INI file ingest read (as setups.derive reads them: io500_runs.scripts), by path: a run
-- holding one of its own can be tested for settings changed while it ran (analysis.flag_coverage).
SELECT path FROM sources WHERE status <> 'gone' AND regexp_matches(path, '\.(sh|ini)$') ORDER BY path

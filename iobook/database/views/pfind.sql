-- pfind: public views over raw_pfind_runs and raw_pfind_ranks (iobook/parsers/pfind.py): the CSV io500 writes of
-- its find phases (find.csv; find-easy.csv and find-hard.csv in extended mode).

-- One row per file: the run time and rate pfind printed, its ranks' sums, and whether it failed: a phase whose
-- ranks reported errors is a failed phase, never a rate.
CREATE OR REPLACE VIEW pfind_runs AS
SELECT
    r.source_id,
    r.runtime_s,
    r.rate,                                  -- items checked per second
    count(k.rank) AS ranks,
    sum(k.errors) AS errors,
    sum(k.found) AS found,
    sum(k.checked) AS checked,
    sum(k.errors) > 0 AS failed,
    s.path
FROM raw_pfind_runs r
JOIN sources s USING (source_id)
LEFT JOIN raw_pfind_ranks k USING (source_id)
GROUP BY ALL;

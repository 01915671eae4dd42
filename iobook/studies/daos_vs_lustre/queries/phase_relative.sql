-- Per family and scored phase (the list bound to ?): the family's median over the median of all chosen runs.
-- _chosen is the study's chosen runs (run_id, family), registered by analysis.phase_relative.
WITH per_run AS (
    SELECT c.family, p.phase, p.value FROM _chosen c JOIN io500_phases p USING (run_id)
    WHERE list_contains(?, p.phase) AND p.value > 0),
field AS (SELECT phase, median(value) AS field_median FROM per_run GROUP BY phase)
SELECT family, phase, count(*) AS runs, median(value) AS family_median, field_median,
       median(value) / field_median AS relative
FROM per_run JOIN field USING (phase) GROUP BY family, phase, field_median ORDER BY family, phase

-- The IO500 summary's value of the phases (?: phase names) of the runs (?: run ids), with the file it was read from.
SELECT run_id, phase, value, source_id
FROM io500_phases
WHERE list_contains(?, run_id) AND list_contains(?, phase)

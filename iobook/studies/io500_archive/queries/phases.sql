-- Every scored phase of every counted IO500 run, one row each: the value the run's summary prints (GiB/s or
-- kIOPS). A phase the summary marks invalid, or that reports no positive value, is no measurement.
SELECT p.run_id, p.phase, p.value, p.unit
FROM io500_phases p JOIN io500_runs r USING (run_id)
WHERE r.counted AND p.scored AND p.valid AND p.value > 0
ORDER BY p.run_id, p.phase

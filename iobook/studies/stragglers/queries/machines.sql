-- Each IO500 run's machine (iobook.setups: one installation whatever its submissions' labels), the unit of
-- replication of every count and interval
SELECT run_id, machine FROM setups WHERE machine IS NOT NULL;

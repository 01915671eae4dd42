-- The fio, IOR and mdtest logs of this build (not gone): the sources a run's label is given to.
SELECT source_id FROM sources WHERE status = 'ok' AND tool IN ('fio', 'ior', 'mdtest') ORDER BY source_id

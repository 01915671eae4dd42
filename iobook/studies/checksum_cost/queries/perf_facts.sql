-- What the collector found perf could count, per run (manifest facts.perf.*).
SELECT run_id, replace(key, 'facts.perf.', '') AS fact, value
FROM run_facts
WHERE list_contains(?, run_id) AND key IN ('facts.perf.memory_controller_pmus', 'facts.perf.memory_traffic',
                                           'facts.perf.events.instructions', 'facts.perf.events.cycles')
ORDER BY run_id, key

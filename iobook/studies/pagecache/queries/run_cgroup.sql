-- The memory cgroup the collector ran fio in, per run (?: run ids, from the manifests' facts): how it was made
-- (cgroup-v1, a systemd scope) and its memory limit in MiB.
SELECT run_id, any_value(value) FILTER (key = 'facts.cgroup.mechanism') AS cgroup,
       CAST(any_value(value) FILTER (key = 'facts.cgroup.memory_limit_bytes') AS BIGINT) / 2^20 AS memory_limit_mib
FROM run_facts WHERE list_contains(?, run_id) GROUP BY run_id

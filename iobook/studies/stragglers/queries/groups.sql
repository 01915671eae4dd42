-- One row per node or position within a node (the first parameter: 'node' or 'position') of each phase listed (the
-- second): its ranks, their median time, the median of their times over the phase's median rank time (1 = typical),
-- its first, second and last rank (to name its ranks in short) and how many are among the phase's slowest
WITH placed AS (
    SELECT *, CASE ? WHEN 'node' THEN node WHEN 'position' THEN position END AS grouping
    FROM straggler_placed WHERE list_contains(?, phase_id)
)
SELECT phase_id, grouping, count(*) AS ranks, median(time_s) AS median_s, median(relative) AS relative,
       min(rank) AS first_rank, max(rank) AS last_rank, list_sort(list(rank))[2] AS second_rank,
       count(*) FILTER (WHERE slowness <= slow_ranks) AS slow
FROM placed WHERE grouping IS NOT NULL
GROUP BY phase_id, grouping ORDER BY phase_id, grouping;

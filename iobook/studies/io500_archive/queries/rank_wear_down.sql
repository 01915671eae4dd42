-- The stonewall wear-down rank by rank, from the per-rank CSV IOR wrote beside an IO500 write phase's log
-- (saveRankPerformanceDetailsCSV: each rank's time of its transfers, runtime): one row per IOR write log (ior-easy-write,
-- ior-hard-write) with a linked CSV. After the deadline each rank goes on until it has done as many transfers as
-- the rank furthest ahead, so a rank's time past the stonewall hit is its own wear-down: the median rank's, the
-- slowest rank's (which is the phase's), and how many times the median the slowest took (1: every rank wore down
-- alike; large: a few stragglers kept the phase open). The stonewall hit as wear_down.sql takes it (the summary's
-- Stonewall(s), else the stonewall line's time), the first iteration of the log's first test.
WITH hit AS (
    SELECT l.source_id, COALESCE(s.stonewall_time_s, t.stonewall_hit_s) AS stonewall_hit_s, t.test_id
    FROM io500_phase_log_links l
    JOIN ior_tests t USING (source_id)
    LEFT JOIN ior_summary s ON s.test_id = t.test_id AND s.access = 'write'
    WHERE l.phase IN ('ior-easy-write', 'ior-hard-write') AND t.stonewall_s > 0
    QUALIFY row_number() OVER (PARTITION BY l.source_id ORDER BY t.test_index) = 1
), ranks AS (
    SELECT r.test_id, r.time_s
    FROM ior_ranks r
    WHERE r.access = 'write'
    QUALIFY r.iteration = min(r.iteration) OVER (PARTITION BY r.test_id)
)
SELECT h.source_id, count(*) AS ranks,
       median(r.time_s) - h.stonewall_hit_s AS median_rank_wear_down_s,
       max(r.time_s) - h.stonewall_hit_s AS slowest_rank_wear_down_s,
       (max(r.time_s) - h.stonewall_hit_s) / nullif(median(r.time_s) - h.stonewall_hit_s, 0) AS slowest_over_median_rank
FROM hit h JOIN ranks r USING (test_id)
WHERE h.stonewall_hit_s IS NOT NULL
GROUP BY h.source_id, h.stonewall_hit_s
HAVING median(r.time_s) > h.stonewall_hit_s
ORDER BY h.source_id;

-- Per phase: its slowest rank, where it sits, and how many of the slowest ranks share its node and position; with
-- known placement, the share of the log rank times' variance that lies between nodes (eta squared) and what random
-- placement gives on average, (nodes - 1) / (ranks - 1). Sums over ranks are ordered (ORDER BY inside the
-- aggregate): DuckDB's threads otherwise add in any order and the last digits, which the downloads keep, changed.
WITH slowest AS (
    SELECT phase_id, any_value(slow_ranks) AS slow_ranks,
           any_value(rank) FILTER (WHERE slowness = 1) AS slowest_rank,
           any_value(node) FILTER (WHERE slowness = 1) AS slowest_node,
           any_value(position) FILTER (WHERE slowness = 1) AS slowest_position,
           count(DISTINCT node) AS nodes, count(*) AS ranks,
           avg(ln(time_s) ORDER BY rank) FILTER (WHERE time_s > 0) AS grand,
           var_pop(ln(time_s) ORDER BY rank) FILTER (WHERE time_s > 0) * count(*) FILTER (WHERE time_s > 0) AS total_ss
    FROM straggler_placed GROUP BY phase_id
), by_node AS (
    SELECT phase_id, node, count(*) AS n, avg(ln(time_s) ORDER BY rank) AS mean_log
    FROM straggler_placed WHERE node IS NOT NULL AND time_s > 0 GROUP BY phase_id, node
), between AS (
    SELECT b.phase_id, sum(b.n * (b.mean_log - s.grand) ^ 2 ORDER BY b.node) AS between_ss
    FROM by_node b JOIN slowest s USING (phase_id) GROUP BY b.phase_id
)
SELECT s.phase_id, s.slow_ranks, s.slowest_rank, s.slowest_node, s.slowest_position, s.nodes,
       count(*) FILTER (WHERE p.node = s.slowest_node) AS node_size,
       count(*) FILTER (WHERE p.node = s.slowest_node AND p.slowness <= s.slow_ranks) AS slow_on_node,
       count(*) FILTER (WHERE p.position = s.slowest_position) AS position_size,
       count(*) FILTER (WHERE p.position = s.slowest_position AND p.slowness <= s.slow_ranks) AS slow_at_position,
       any_value(w.between_ss) / nullif(any_value(s.total_ss), 0) AS between_node_share,
       (s.nodes - 1) / (s.ranks - 1) AS between_node_chance
FROM straggler_placed p JOIN slowest s USING (phase_id) LEFT JOIN between w USING (phase_id)
GROUP BY ALL ORDER BY s.phase_id

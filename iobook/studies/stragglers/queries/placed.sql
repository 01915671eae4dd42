-- Each rank's node and position within its node (from its phase's placement, straggler_placement, a frame the study
-- registers: NULL where unknown), its order from the slowest (1 = slowest, ties to the lower rank) and its time over
-- the phase's median rank time
CREATE OR REPLACE TEMP TABLE straggler_placed AS
SELECT r.phase_id, r.rank, r.time_s, p.slow_ranks,
       CASE p.placement WHEN 'block' THEN r.rank // p.tasks_per_node WHEN 'round-robin' THEN r.rank % p.nodes END
           AS node,
       CASE p.placement WHEN 'block' THEN r.rank % p.tasks_per_node WHEN 'round-robin' THEN r.rank // p.nodes END
           AS position,
       row_number() OVER (PARTITION BY r.phase_id ORDER BY r.time_s DESC, r.rank) AS slowness,
       r.time_s / median(r.time_s) OVER (PARTITION BY r.phase_id) AS relative
FROM straggler_ranks r JOIN straggler_placement p USING (phase_id)

-- The columns of a table (?: its name), in their order.
SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position

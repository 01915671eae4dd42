-- The hosts IOR's tests name (rank 0's node).
SELECT DISTINCT host FROM raw_ior_tests

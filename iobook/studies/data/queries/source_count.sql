-- How many files the database has seen (0: an empty database), whatever their outcome.
SELECT count(*) FROM sources

-- Which of the given files (?: their source ids) the store already holds.
SELECT source_id FROM sources WHERE list_contains(?, source_id)

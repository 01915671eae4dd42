-- Every parsed log of the tools (?) a setup.yml's fields are kept for.
SELECT source_id, path FROM sources WHERE status = 'ok' AND list_contains(?, tool) ORDER BY source_id

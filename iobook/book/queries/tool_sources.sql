-- The files read of the tools given (parameter: tool names).
SELECT source_id FROM sources WHERE status = 'ok' AND list_contains(?, tool)

-- Every file that failed, with the line and reason, in source id order.
SELECT path, error_line, error FROM sources WHERE status = 'error' ORDER BY source_id

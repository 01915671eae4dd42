-- Each submission the IO500 site's record holds (setups.list_entry), once: how its list entry relates to its runs
-- here (iobook/database/io500_lists.py, LIST_CHECKS): the code of the run that carries the list's values (every
-- code but ANOTHER_RUN and NO_RUN_MATCHES; the ISC21 reload publishes no score, so a carrying run may hold none),
-- else NO_RUN_MATCHES; the list it entered, and that run's key and detail.
WITH carried AS (
    SELECT *, list_check NOT IN ('ANOTHER_RUN', 'NO_RUN_MATCHES') AS carries FROM setups WHERE list_entry IS NOT NULL)
SELECT s.list_entry AS submission, any_value(s.list) AS list,
       coalesce(any_value(s.list_check) FILTER (WHERE s.carries), 'NO_RUN_MATCHES') AS reason,
       coalesce(any_value(s.run_key) FILTER (WHERE s.carries), min(s.run_key)) AS run_key,
       coalesce(any_value(s.list_check_detail) FILTER (WHERE s.carries),
                min(s.list_check_detail)) AS detail
FROM carried s
GROUP BY s.list_entry
ORDER BY s.list_entry

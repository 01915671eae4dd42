-- What each IO500 run's own summaries print of its system (bash logs' io500_info lines), key by key.
SELECT run_id, key, value FROM io500_system_info ORDER BY run_id, key

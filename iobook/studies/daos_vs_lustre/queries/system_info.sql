-- What one run (run id ?) declares of its system in its io500_info lines.
SELECT key, value FROM io500_system_info WHERE run_id = ?

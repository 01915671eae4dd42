-- Where DuckDB spills what exceeds its memory limit (parameter: a folder).
SET temp_directory = ?

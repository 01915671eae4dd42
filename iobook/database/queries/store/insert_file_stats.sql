-- The stats in the Arrow table registered as _stats recorded (one row a file, columns named as file_stats').
INSERT INTO file_stats BY NAME SELECT * FROM _stats

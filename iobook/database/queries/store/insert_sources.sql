-- The sources rows in the Arrow table registered as _incoming added (columns named as sources').
INSERT INTO sources BY NAME SELECT * FROM _incoming

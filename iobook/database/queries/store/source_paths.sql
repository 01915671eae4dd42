-- The path of every file the store holds a row of.
SELECT path FROM sources

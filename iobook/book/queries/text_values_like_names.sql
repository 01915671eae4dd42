-- The distinct values of one text column that hold an IPv4 or IPv6 address or a user's name (parameters: the three
-- patterns). The table and column come from the database's own catalogue (text_columns.sql): placeholders the
-- caller fills with quoted identifiers (sql.statement), as no database binds a table's name.
SELECT DISTINCT {column} FROM {table}
WHERE regexp_matches({column}, ?) OR regexp_matches({column}, ?) OR regexp_matches({column}, ?)

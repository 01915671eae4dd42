"""The store layer: ingest (files found, parsed by iobook.parsers, written by one writer), the DuckDB schema and its
public views (views/*.sql), and what ingest derives beside the records: each IO500 run's attribution and setup,
labels, families, references and the published tables. Only ingest writes the database."""

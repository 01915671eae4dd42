"""Chapter studies: the queries and charts behind each notebook in notebooks/, one module per chapter."""

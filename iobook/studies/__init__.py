"""Chapter studies: one package per notebook in notebooks/, in layers (queries/*.sql, analysis, charts, findings)
and a report(con, **params) that wires them for the notebook."""

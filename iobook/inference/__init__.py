"""The evidence layer: the one decision rule (evidence), its statistics, units, run selection, bounds and change
points. Pure functions of numbers and records: no database, no page."""

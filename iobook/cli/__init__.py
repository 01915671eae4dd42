"""The command line: `iobook book|ingest|check|chapters|registry|new-chapter` and the CI gate."""

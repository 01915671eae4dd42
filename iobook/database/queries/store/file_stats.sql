-- The stat recorded of each file whose bytes are known unchanged by it.
SELECT source_id, bytes, mtime_ns, ctime_ns, inode FROM file_stats

-- Each IO500 run's fingerprint: the digest of its phase values.
SELECT run_id, fingerprint FROM io500_run_info

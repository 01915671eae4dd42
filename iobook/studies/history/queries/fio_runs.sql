-- One row per fio job that did I/O without error (a failed run is no rate), dated by fio's own timestamp, and no
-- copy of a log stored already: its workload key (job name, the options that make two runs the same workload and
-- the target it reads or writes; runtime, log settings, ... may change along a history and are reported as what
-- changed), total bandwidth over its directions (B/s), the longer completion-latency p99 of its directions (ns).
SELECT j.job_id, j.source_id, j.started, j.version, j.options, s.path, j.jobname, j.rw, j.bs,
       j.jobname || ': ' || concat_ws(' ', 'rw=' || j.rw, 'bs=' || j.bs, 'iodepth=' || j.iodepth,
                                      'numjobs=' || j.numjobs, 'direct=' || j.direct, 'ioengine=' || j.ioengine,
                                      'size=' || j.size,
                                      'directory=' || json_extract_string(j.options, '$.directory'),
                                      'filename=' || json_extract_string(j.options, '$.filename'),
                                      'filename_format=' || json_extract_string(j.options, '$.filename_format'))
           AS workload,
       sum(io.bw_bytes_s) AS bw_bytes_s, max(io.lat_p99_ns) AS p99_ns
FROM fio_jobs j JOIN fio_io io USING (job_id) JOIN sources s USING (source_id)
WHERE j.started IS NOT NULL AND j.error = 0
  AND j.source_id NOT IN (SELECT source_id FROM duplicate_logs)
GROUP BY ALL ORDER BY j.started, j.job_id;

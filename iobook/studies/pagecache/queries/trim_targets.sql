-- Per trim run (?: run ids), the device trimmed and what lies under it (the manifest's facts.loop and target): the
-- loop device, its image file's size, and the file system and device holding the image.
SELECT f.run_id, any_value(f.value) FILTER (f.key = 'facts.loop.device') AS loop_device,
       any_value(f.value) FILTER (f.key = 'facts.loop.image_size') AS image_size,
       any_value(r.target_filesystem) AS image_filesystem, any_value(r.target_device) AS image_device
FROM run_facts f JOIN runs r USING (run_id)
WHERE list_contains(?, f.run_id)
GROUP BY f.run_id ORDER BY f.run_id

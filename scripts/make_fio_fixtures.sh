#!/usr/bin/env bash
# Make the fio test fixtures in tests/fixtures/fio/ by running the real fio (Debian's fio 3.33) here.
# Small and fast: a few MiB per job in a scratch folder under /tmp. Outputs are kept unmodified;
# stdout and stderr are merged where a fixture needs fio's own warning lines before the JSON.
# The trim fixtures need root (a loop device over a file in /tmp); they are skipped without one.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/tests/fixtures/fio}
work=$(mktemp -d /tmp/iobook-fio-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/jobs" "$out/logs-avg" "$out/logs-raw"
fio --version

# Several jobs in three groups: sequential write, sequential read, random read/write with two
# processes (reported per process) and libaio at queue depth 4.
cat > "$out/jobs/multi.fio" <<JOB
[global]
directory=\${WORK}
size=4M
runtime=3
ioengine=psync

[seq-write]
rw=write
bs=64k

[seq-read]
stonewall
new_group
rw=read
bs=64k

[randrw-4k]
stonewall
new_group
rw=randrw
bs=4k
numjobs=2

[randread-aio]
rw=randread
bs=16k
ioengine=libaio
iodepth=4
JOB
run_multi() { WORK=$work fio "$out/jobs/multi.fio" "$@"; }
run_multi --output-format=normal > "$out/fio333-multi.normal.txt"
run_multi --output-format=json > "$out/fio333-multi.json"
run_multi --output-format=json+ > "$out/fio333-multi.jsonplus.json"
run_multi --output-format=terse --terse-version=3 > "$out/fio333-multi.terse3.txt"
run_multi --output-format=terse --terse-version=4 > "$out/fio333-multi.terse4.txt"
run_multi --output-format=terse --terse-version=5 > "$out/fio333-multi.terse5.txt"

# A queue depth over 1 with a synchronous engine: fio prints a note line before the JSON.
fio --name=noisy --directory="$work" --size=2M --bs=64k --rw=read --iodepth=4 \
    --output-format=json > "$out/fio333-noise-before.json" 2>&1

# Errors: a file under a regular file (ENOTDIR, fio's error lines come before the JSON) and a trim
# of a regular file (ENOTTY), in JSON and in normal output.
touch "$work/plain"
fio --name=broken-path --filename="$work/plain/sub" --size=1M --rw=write \
    --output-format=json > "$out/fio333-error-path.json" 2>&1 || true
fio --name=broken-path --filename="$work/plain/sub" --size=1M --rw=write \
    --output-format=normal > "$out/fio333-error-path.normal.txt" 2>&1 || true
fio --name=trim-regular-file --directory="$work" --size=1M --rw=trim \
    --output-format=json > "$out/fio333-error-trim.json" 2>&1 || true

# Trim on a loop device over a file in /tmp (needs root).
truncate -s 16M "$work/loop.img"
if loop=$(losetup -f --show "$work/loop.img" 2>/dev/null); then
    fio --name=trim-loop --filename="$loop" --rw=randtrim --bs=64k --size=8M --runtime=2 \
        --output-format=normal > "$out/fio333-trim-loop.normal.txt"
    fio --name=trim-loop --filename="$loop" --rw=randtrim --bs=64k --size=8M --runtime=2 \
        --output-format=json > "$out/fio333-trim-loop.json"
    fio --name=trimwrite-loop --filename="$loop" --rw=trimwrite --bs=64k --size=4M --runtime=2 \
        --output-format=terse --terse-version=4 > "$out/fio333-trimwrite-loop.terse4.txt"
    losetup -d "$loop"
else
    echo "no loop device: trim fixtures skipped" >&2
fi

# bw/iops/lat logs beside the JSON that names them, as the collectors write them: json+ output,
# rate-limited so the ~1 s run gives a few samples. Averaged every 100 ms ...
(cd "$out/logs-avg" && fio --name=logged-randrw --directory="$work" --rw=randrw --bs=16k --size=2M \
    --rate=1m,1m --runtime=3 --write_bw_log=avg --write_iops_log=avg --write_lat_log=avg \
    --log_avg_msec=100 --output-format=json+ > fio333-logs-avg.json)
# ... and one line per I/O.
(cd "$out/logs-raw" && fio --name=logged-write --directory="$work" --rw=write --bs=64k --size=1M \
    --rate=1m --runtime=3 --write_bw_log=raw --write_iops_log=raw --write_lat_log=raw \
    --output-format=json > fio333-logs-raw.json)
ls -l "$out" "$out/logs-avg" "$out/logs-raw"

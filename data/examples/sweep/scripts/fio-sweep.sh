#!/bin/bash
# fio sweep: random read (and random write) over bs x iodepth, 3 repetitions, on each target.
# Reps are the outer loop so that a slow spell of the shared machine spreads over configurations.
set -u
OUT=/work/sweep-data
MAN=$OUT/MANIFEST.tsv
FIOV=$(fio --version)
declare -A TARGET=( [vda-ext4]=/work/sweep-targets/vda [loop-ext4]=/work/sweep-targets/loopmnt [tmpfs]=/dev/shm/sweep )
SYSTEMS=${SYSTEMS:-"vda-ext4 loop-ext4 tmpfs"}
[ -f "$MAN" ] || printf 'file\ttool\tversion\tcommand\tnotes\n' > "$MAN"
run() {  # run <system> <relfile> <fio args...>
  local sys=$1 rel=$2; shift 2
  mkdir -p "$(dirname "$OUT/$rel")"
  local load; load=$(cat /proc/loadavg)
  local cmd="fio $*"
  ( cd "${TARGET[$sys]}" && fio "$@" ) > /dev/null 2> "$OUT/$rel.stderr"
  local rc=$?
  [ -s "$OUT/$rel.stderr" ] || rm -f "$OUT/$rel.stderr"
  printf '%s\t%s\t%s\t%s\t%s\n' "$rel" fio "$FIOV" "cd ${TARGET[$sys]} && $cmd" "exit=$rc; loadavg before: $load; target: $sys" >> "$MAN"
}
for rep in 1 2 3; do
  for sys in $SYSTEMS; do
    dir=${TARGET[$sys]}
    for rw in randread randwrite; do
      for bs in 4k 64k 1m; do
        for qd in 1 16; do
          rel=$sys/fio-$rw-bs$bs-qd$qd/rep$rep.json
          run "$sys" "$rel" --name=$rw-bs$bs-qd$qd --filename=$dir/fio-testfile --size=256m \
            --rw=$rw --bs=$bs --iodepth=$qd --numjobs=1 --ioengine=libaio --direct=1 \
            --runtime=5 --ramp_time=1 --time_based --output-format=json --output=$OUT/$rel
        done
      done
    done
    # the same job with fio's normal (text) output, as many people keep it
    rel=$sys/fio-randread-bs64k-qd16-text/rep$rep.txt
    run "$sys" "$rel" --name=randread-bs64k-qd16 --filename=$dir/fio-testfile --size=256m \
      --rw=randread --bs=64k --iodepth=16 --numjobs=1 --ioengine=libaio --direct=1 \
      --runtime=5 --ramp_time=1 --time_based --output=$OUT/$rel
  done
done

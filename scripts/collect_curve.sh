#!/usr/bin/env bash
# Regenerates data/examples/curve/ (issue 29, whole curves): one fio random-read job swept over its block size
# (4k, 16k, 64k, 256k, 1m), 3 runs a point, on two targets (the labels: their folders) with the same options,
# O_DIRECT included: `disk/` a file on the VM's root ext4 (its virtio disk), `tmpfs/` a file on /dev/shm (RAM;
# this kernel accepts O_DIRECT on tmpfs). Only the file's folder differs, and Your runs ignores file names, so the
# two labels share every configuration. The repetition loop is outermost and the labels alternate inside it, so a
# slow spell of the shared machine spreads over both. MANIFEST.tsv records each run's command line and the load
# average before it (the chapter does not read it). Needs fio; no root.
# Usage: scripts/collect_curve.sh [out_dir] [disk_dir] [tmpfs_dir]
set -euo pipefail
OUT=$(realpath -m "${1:-data/examples/curve}")
declare -A TARGET=([disk]=$(realpath -m "${2:-/var/tmp/iobook-curve}") [tmpfs]=$(realpath -m "${3:-/dev/shm/iobook-curve}"))
mkdir -p "$OUT" "${TARGET[@]}"
printf 'file\tcommand\tloadavg before\n' > "$OUT/MANIFEST.tsv"
# lay the files out once, so that no run measures their creation
for label in disk tmpfs; do
  fio --name=layout --filename="${TARGET[$label]}/curve.dat" --size=128m --rw=write --bs=1m --create_only=1 --output=/dev/null
done
for rep in 1 2 3; do
  for bs in 4k 16k 64k 256k 1m; do
    for label in disk tmpfs; do
      rel=$label/randread-bs$bs/rep$rep.json
      mkdir -p "$OUT/$(dirname "$rel")"
      cmd=(fio --name=randread-bs$bs --filename="${TARGET[$label]}/curve.dat" --size=128m --rw=randread --bs=$bs
           --ioengine=psync --iodepth=1 --numjobs=1 --direct=1 --runtime=3 --time_based
           --output-format=json --output="$OUT/$rel")
      printf '%s\t%s\t%s\n' "$rel" "${cmd[*]}" "$(cat /proc/loadavg)" >> "$OUT/MANIFEST.tsv"
      "${cmd[@]}"
    done
  done
done
for label in disk tmpfs; do rm -f "${TARGET[$label]}/curve.dat"; done

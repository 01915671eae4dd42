#!/usr/bin/env bash
# Regenerates data/examples/history/ (issue 29): one identical fio job run 30 times with one real change at a
# recorded run (`change/`: its target directory is on a tmpfs for runs 1-15, on an ext4 image behind a
# direct-I/O loop device for runs 16-30), 30 times with no change (`steady/`: tmpfs throughout, its own
# directory), and one buffered run on a cold ext4 page cache whose bandwidth climbs as the cache fills (`warmup/`). Every run is
# `cd <run folder>` and the same fio command line; MANIFEST.tsv records what backed the target at each run (the
# chapter does not read it). Needs root and fio.  Usage: sudo scripts/collect_history.sh [out_dir]
set -euo pipefail
OUT=$(realpath -m "${1:-data/examples/history}")
WORK=$(mktemp -d /tmp/iobook-history.XXXXXX)
MNT=$WORK/mnt
RUNS=30
CHANGE_AT=16
mkdir -p "$OUT" "$MNT"
LOOP=""
cleanup() { mountpoint -q "$MNT" && umount "$MNT"; [ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM
mount_tmpfs() { mountpoint -q "$MNT" && umount "$MNT"; mount -t tmpfs -o size=128M tmpfs "$MNT"; mkdir -p "$MNT/change" "$MNT/steady"; }
mount_ext4() {
  mountpoint -q "$MNT" && umount "$MNT"
  [ -n "$LOOP" ] && losetup -d "$LOOP"
  truncate -s 128M "$WORK/ext4.img"; mkfs.ext4 -q -F "$WORK/ext4.img"
  LOOP=$(losetup --direct-io=on -f --show "$WORK/ext4.img"); mount "$LOOP" "$MNT"; mkdir -p "$MNT/change" "$MNT/warmup"
}
run() {  # history run_number backing [extra fio options]
  local dir; dir=$(printf '%s/%s/run%02d' "$OUT" "$1" "$2"); mkdir -p "$dir"
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$OUT/MANIFEST.tsv"
  (cd "$dir" && fio --name=randread4k --directory="$MNT/$1" --rw=randread --bs=4k --size=32M --ioengine=psync \
     --direct=1 --runtime=3 --time_based --write_bw_log=bw --log_avg_msec=100 --output-format=json \
     --output=fio.json "${@:4}")
}
printf 'history\trun\ttarget backed by\tstarted (UTC)\n' > "$OUT/MANIFEST.tsv"
mount_tmpfs
for i in $(seq 1 $RUNS); do
  [ "$i" -eq "$CHANGE_AT" ] && mount_ext4
  run change "$i" "$([ "$i" -lt "$CHANGE_AT" ] && echo tmpfs || echo 'ext4 image on a direct-I/O loop device')"
done
mount_tmpfs
for i in $(seq 1 $RUNS); do run steady "$i" tmpfs; done
# A cold page cache: the file laid out, the ext4 mounted afresh, then buffered reads warm the cache (bw climbs).
mount_ext4
fio --name=randread4k --directory="$MNT/warmup" --rw=randread --bs=4k --size=64M --create_only=1 --output=/dev/null
umount "$MNT"; mount "$LOOP" "$MNT"
run warmup 1 "ext4 image, cold page cache: --direct=0 --norandommap --size=64M --runtime=5" --direct=0 --norandommap --size=64M --runtime=5

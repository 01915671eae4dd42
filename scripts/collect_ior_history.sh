#!/usr/bin/env bash
# Regenerates data/examples/ior-history/: one identical IOR command and one identical mdtest command run 24 times
# with one real change at a recorded run (`change/`: the target directory is on a tmpfs for runs 1-12, on an ext4
# image behind a direct-I/O loop device for runs 13-24), and 24 times with no change (`steady/`: tmpfs throughout,
# its own directory). Every run is `cd <run folder>` and the same two command lines (IOR's stdout into ior.txt,
# mdtest's into mdtest.txt; stderr kept only when not empty); MANIFEST.tsv records what backed the target at each
# run (the chapter does not read it); README.md says how the folder was made and the means either side of the change.
# Needs root, Open MPI (mpirun), mkfs.ext4 and losetup; IOR and mdtest are built from ../shared/vendor/ into a temp
# dir when no build dir (a built hpc/ior tree with src/ior and src/mdtest) is given, which also needs
# `apt-get install openmpi-bin libopenmpi-dev autoconf automake pkg-config`.
# Usage: sudo scripts/collect_ior_history.sh [out_dir] [ior_build_dir]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${1:-data/examples/ior-history}")
BUILD=${2:-}
VENDOR=$ROOT/../shared/vendor/ior-5fcf0ba.tar.gz
RUNS=24
CHANGE_AT=13
SIZE=256M  # the tmpfs and the ext4 image alike; IOR writes 2 x 64 MiB
# The two fixed command lines (their target, <target>/<history>/..., is added in run()). IOR fsyncs after every
# 1 MiB write (-Y) and at close (-e), mdtest after writing each 4 KiB file (-y): on a tmpfs a no-op, on the ext4 a
# journal commit and a flush down the direct-I/O loop device, so the backing store shows in the write and create
# rates. IOR reads come from the page cache either way.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np 2)
IOR_ARGS=(-a POSIX -w -r -t 1m -b 64m -F -e -Y -C -i 1)
MD_ARGS=(-n 500 -u -w 4096 -e 4096 -y)
export TZ=UTC  # IOR's "Began" and mdtest's "-- started at" are local time: make them UTC like the manifest

[ "$(id -u)" -eq 0 ] || { echo "needs root (mount, losetup)" >&2; exit 1; }
for tool in mpirun mkfs.ext4 losetup; do
  command -v "$tool" > /dev/null || { echo "needs $tool (apt-get install openmpi-bin e2fsprogs mount)" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/iobook-ior-history.XXXXXX)
MNT=$WORK/mnt
mkdir -p "$MNT"
LOOP=""
cleanup() { mountpoint -q "$MNT" && umount "$MNT"; [ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM

if [ -z "$BUILD" ]; then
  [ -f "$VENDOR" ] || { echo "no build dir given and no $VENDOR" >&2; exit 1; }
  echo "building IOR and mdtest from $VENDOR (log: $WORK/build.log)" >&2
  tar -xzf "$VENDOR" -C "$WORK"
  BUILD=$WORK/ior-5fcf0ba
  (cd "$BUILD" && ./bootstrap && ./configure && make) > "$WORK/build.log" 2>&1 || { tail -n 30 "$WORK/build.log" >&2; exit 1; }
fi
IOR=$(realpath "$BUILD/src/ior")
MDTEST=$(realpath "$BUILD/src/mdtest")
[ -x "$IOR" ] && [ -x "$MDTEST" ] || { echo "no src/ior and src/mdtest under $BUILD" >&2; exit 1; }

mount_tmpfs() { mountpoint -q "$MNT" && umount "$MNT"; mount -t tmpfs -o size=$SIZE tmpfs "$MNT"; mkdir -p "$MNT/change" "$MNT/steady"; }
mount_ext4() {
  mountpoint -q "$MNT" && umount "$MNT"
  [ -n "$LOOP" ] && losetup -d "$LOOP" && LOOP=""
  rm -f "$WORK/ext4.img"; truncate -s $SIZE "$WORK/ext4.img"; mkfs.ext4 -q -F "$WORK/ext4.img"
  LOOP=$(losetup --direct-io=on -f --show "$WORK/ext4.img"); mount "$LOOP" "$MNT"; mkdir -p "$MNT/change"
}
capture() {  # out_file command...: stdout into out_file, stderr into out_file's .err only when not empty
  local out=$1 err=${1%.txt}.err rc=0; shift
  "$@" > "$out" 2> "$err" || rc=$?
  [ -s "$err" ] || rm -f "$err"
  [ "$rc" -eq 0 ] || { echo "failed (exit $rc) in $PWD: $*" >&2; return "$rc"; }
}
run() {  # history run_number backing
  local dir; dir=$(printf '%s/%s/run%02d' "$OUT" "$1" "$2"); mkdir -p "$dir"
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$OUT/MANIFEST.tsv"
  (cd "$dir"
   capture ior.txt "${MPIRUN[@]}" "$IOR" "${IOR_ARGS[@]}" -o "$MNT/$1/ior_file"
   capture mdtest.txt "${MPIRUN[@]}" "$MDTEST" "${MD_ARGS[@]}" -d "$MNT/$1/md")
}
# mean over runs [from, to] of a history: IOR write and read Mean(MiB) of the summary, mdtest File creation mean
means() {
  local files=() i
  for i in $(seq "$2" "$3"); do files+=("$(printf '%s/%s/run%02d' "$OUT" "$1" "$i")"); done
  awk 'FNR == 1 { s = 0 } /^Summary of all tests:/ { s = 1 } s && $1 == "write" && NF > 20 { w += $4; nw++ } s && $1 == "read" && NF > 20 { r += $4; nr++ }
       /^ +File creation / { c += $5; nc++ }
       END { printf "%.0f | %.0f | %.0f", w / nw, r / nr, c / nc }' \
    "${files[@]/%//ior.txt}" "${files[@]/%//mdtest.txt}"
}

rm -rf "$OUT/change" "$OUT/steady"
mkdir -p "$OUT"
printf 'history\trun\ttarget backed by\tstarted (UTC)\n' > "$OUT/MANIFEST.tsv"
mount_tmpfs
for i in $(seq 1 $RUNS); do
  [ "$i" -eq "$CHANGE_AT" ] && mount_ext4
  run change "$i" "$([ "$i" -lt "$CHANGE_AT" ] && echo tmpfs || echo 'ext4 image on a direct-I/O loop device')"
done
mount_tmpfs
for i in $(seq 1 $RUNS); do run steady "$i" tmpfs; done

cat > "$OUT/README.md" <<EOF
# A history of one IOR and one mdtest command

Real IOR and mdtest runs (hpc/ior at commit 5fcf0ba, IOR-4.1.0+dev and mdtest-4.1.0+dev, built with Open MPI
$(mpirun --version 2>/dev/null | head -n 1 | awk '{print $NF}')) made by \`scripts/collect_ior_history.sh\` on $(date -u +'%-d %B %Y'), on a machine with $(nproc) cores
(Linux $(uname -r)), 2 MPI ranks on one node. Every run is \`cd <history>/runNN\` and the same two command lines:

    ${MPIRUN[*]} ior ${IOR_ARGS[*]} -o <target>/<history>/ior_file > ior.txt
    ${MPIRUN[*]} mdtest ${MD_ARGS[*]} -d <target>/<history>/md > mdtest.txt

(\`ior\` and \`mdtest\` as printed in each output's command line; stderr would be kept in ior.err / mdtest.err and
was empty where there is none). IOR writes 64 MiB per rank, file per process, in 1 MiB transfers with an fsync after
each (\`-Y\`) and at close (\`-e\`), then reads it back with the ranks shifted (\`-C\`; from the page cache, so the read
rate follows the file system's page cache, not the device); mdtest, each rank in its own directory (\`-u\`), creates
500 directories and then 500 files per rank, writing 4 KiB into each file and fsyncing it (\`-w 4096 -y\`), stats,
reads (\`-e 4096\`) and removes them. On the tmpfs an fsync does nothing; on the ext4 it commits the journal and
flushes through the loop device, which reads and writes its image with O_DIRECT.

| folder | runs | what |
| --- | --- | --- |
| \`change/\` | $RUNS | the target directory on a $SIZE tmpfs for runs 1-$((CHANGE_AT - 1)), on a $SIZE ext4 image behind a direct-I/O loop device (\`losetup --direct-io=on\`) from run $CHANGE_AT |
| \`steady/\` | $RUNS | tmpfs throughout, its own directory: no change |

Means of each output's summary (IOR's Mean(MiB) of write and read, MiB/s; mdtest's File creation mean, ops/s):

| history | runs | IOR write | IOR read | mdtest File creation |
| --- | --- | --- | --- | --- |
| change | 1-$((CHANGE_AT - 1)) | $(means change 1 $((CHANGE_AT - 1))) |
| change | $CHANGE_AT-$RUNS | $(means change $CHANGE_AT $RUNS) |
| steady | 1-$((CHANGE_AT - 1)) | $(means steady 1 $((CHANGE_AT - 1))) |
| steady | $CHANGE_AT-$RUNS | $(means steady $CHANGE_AT $RUNS) |

\`MANIFEST.tsv\` records what backed the target at each run and when it started; the chapter does not read it (it
finds the change from the IOR and mdtest outputs alone). Each run's time is IOR's \`Began\` / \`StartTime\` and mdtest's
\`-- started at\` line (UTC).
EOF
echo "wrote $OUT" >&2

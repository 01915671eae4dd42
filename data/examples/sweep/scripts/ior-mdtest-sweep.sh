#!/bin/bash
# IOR and mdtest sweeps on the same three targets as the fio sweep.
# IOR: transfer size 64k/1m/4m x tasks 1/2 x file-per-process/shared, O_DIRECT, fsync, -i 3 per file,
#      run twice per configuration: rep1 with the default text output, rep2 with -O summaryFormat=JSON.
# mdtest: items 1000/5000 x tasks 1/2, -i 3, one file per configuration.
set -u
OUT=/work/sweep-data
MAN=$OUT/MANIFEST.tsv
BIN=/work/build/ior-src/src
IORV="IOR-4.1.0+dev (hpc/ior sources from the stored index, POSIX-only hand build; see scripts/BUILD.md)"
MDV="mdtest-4.1.0+dev (same build)"
declare -A TARGET=( [vda-ext4]=/work/sweep-targets/vda [loop-ext4]=/work/sweep-targets/loopmnt [tmpfs]=/dev/shm/sweep )
SYSTEMS=${SYSTEMS:-"vda-ext4 loop-ext4 tmpfs"}
MPI="mpirun --allow-run-as-root --oversubscribe"
log() {  # log <relfile> <tool> <version> <command> <rc> <load> <sys> <notes>
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "exit=$5; loadavg before: $6; target: $7; $8" >> "$MAN"
}
for sys in $SYSTEMS; do
  dir=${TARGET[$sys]}
  for np in 1 2; do
    for access in fpp shared; do
      flag=""; [ $access = fpp ] && flag="-F"
      for t in 64k 1m 4m; do
        cfg=$sys/ior-$access-t$t-b64m-np$np
        mkdir -p "$OUT/$cfg"
        for rep in 1 2; do
          if [ $rep = 1 ]; then fmt=""; ext=log; else fmt="-O summaryFormat=JSON"; ext=json; fi
          rel=$cfg/rep$rep.$ext
          cmd="$MPI -np $np ior -a POSIX --posix.odirect $flag -w -r -C -e -i 3 -t $t -b 64m $fmt -o $dir/ior-$access/testfile"
          mkdir -p "$dir/ior-$access"
          load=$(cat /proc/loadavg)
          if [ $rep = 1 ]; then
            ( cd "$dir" && PATH=$BIN:$PATH $cmd ) > "$OUT/$rel" 2>&1; rc=$?; note="stdout+stderr combined"
          else
            ( cd "$dir" && PATH=$BIN:$PATH $cmd ) > "$OUT/$rel" 2> "$OUT/scripts/stderr/${rel//\//_}.stderr"; rc=$?; note="stdout only (JSON); stderr in scripts/stderr/"
          fi
          log "$rel" ior "$IORV" "cd $dir && $cmd" $rc "$load" $sys "$note"
        done
      done
    done
  done
  for np in 1 2; do
    for n in 1000 5000; do
      rel=$sys/mdtest-n$n-np$np/rep1.log
      mkdir -p "$OUT/$(dirname $rel)"
      rm -rf "$dir/mdtest"
      cmd="$MPI -np $np mdtest -n $n -i 3 -d $dir/mdtest"
      load=$(cat /proc/loadavg)
      ( cd "$dir" && PATH=$BIN:$PATH $cmd ) > "$OUT/$rel" 2>&1; rc=$?
      log "$rel" mdtest "$MDV" "cd $dir && $cmd" $rc "$load" $sys "stdout+stderr combined"
    done
  done
done

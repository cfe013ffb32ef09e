#!/bin/bash
# Value GC drops the chunks of its victim it has consumed from the page cache
# (POSIX_FADV_DONTNEED): 353bb8a (old) against the new build (new), twain alone, and old
# with GC held to 1 MiB/s (nogc: what the reads would do with GC out of their way).
# scans-4k-ltm's workload (1.25 M x 4 KiB in a 1 GiB memory cgroup, caches dropped before
# each phase), RUNS runs, the order rotated. STEP=1k runs scans-1k-ltm's workload
# (5 M x 1 KiB), STEP=mem1k scans-1k's (2 M x 1 KiB, in memory). Binaries:
# /work/bin/twain-peers-353bb8a and /work/bin/twain-peers-$NEW (default dn). VARIANTS picks
# among "old new nogc"; FIRST_ROUND numbers the rounds from there (to add rounds).
set -e
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
STEP=${STEP:-4k}
NEW=${NEW:-dn}
VARIANTS=${VARIANTS:-old new nogc}
ltm="--memory-limit 1G --drop-caches"
case "$STEP" in
  4k) args="--num 1250000 --value-size 4096 --overwrites 1250000 $ltm" ;;
  1k) args="--num 5000000 --value-size 1024 --overwrites 5000000 $ltm" ;;
  mem1k) args="--num 2000000 --value-size 1024 --overwrites 2000000" ;;
  *) echo "STEP: 4k, 1k or mem1k" >&2; exit 2 ;;
esac
args="$args --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --quiet"
read -r -a vs <<< "$VARIANTS"
n=${#vs[@]}
FIRST=${FIRST_ROUND:-1}
for r in $(seq "$FIRST" $((FIRST + RUNS - 1))); do
  for i in $(seq 0 $((n - 1))); do
    v=${vs[$(( (i + r - 1) % n ))]}
    bin=/work/bin/twain-peers-353bb8a; extra=""
    [ "$v" = new ] && bin=/work/bin/twain-peers-$NEW
    [ "$v" = nogc ] && extra="--set gc_bytes_per_sec=1048576"
    rm -rf /work/sweepdb/*
    echo "$(date +%T) $STEP r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    $bin --engines twain $args $extra --dir /work/sweepdb --out "$here/$STEP.r$r.$v.jsonl" > "$here/$STEP.r$r.$v.txt" 2>&1
  done
done

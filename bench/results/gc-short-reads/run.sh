#!/bin/bash
# GC reads short while users read: cf4d927 (old) against the new build (new), twain alone,
# scans-4k-ltm's workload (1.25 M x 4 KiB in a 1 GiB memory cgroup, caches dropped before
# each phase), RUNS runs each, order rotated. Binaries: /work/bin/twain-peers-cf4d927 and
# /work/bin/twain-peers-$NEW (default short2: the committed change; short, in first/, had no
# WILLNEED hint in bulk). STEP=1k runs scans-1k-ltm's workload (5 M x 1 KiB) instead,
# STEP=mem1k scans-1k's (2 M x 1 KiB, in memory).
set -e
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
STEP=${STEP:-4k}
NEW=${NEW:-short2}
ltm="--memory-limit 1G --drop-caches"
case "$STEP" in
  4k) args="--num 1250000 --value-size 4096 --overwrites 1250000 $ltm" ;;
  1k) args="--num 5000000 --value-size 1024 --overwrites 5000000 $ltm" ;;
  # scans-1k's workload, in memory
  mem1k) args="--num 2000000 --value-size 1024 --overwrites 2000000" ;;
  *) echo "STEP: 4k, 1k or mem1k" >&2; exit 2 ;;
esac
args="$args --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --quiet"
for r in $(seq 1 "$RUNS"); do
  if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for v in $order; do
    bin=/work/bin/twain-peers-cf4d927; [ $v = new ] && bin=/work/bin/twain-peers-$NEW
    rm -rf /work/sweepdb/*
    echo "$(date +%T) $STEP r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    $bin --engines twain $args --dir /work/sweepdb --out "$here/$STEP.r$r.$v.jsonl" > "$here/$STEP.r$r.$v.txt" 2>&1
  done
done

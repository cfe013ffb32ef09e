#!/bin/bash
# Issue 14: scans right after a zipfian burst with 8 (default), 2 and 0 prefetch threads, on
# two cores; build 13a32a0; three runs, order rotated.
B=${B:-/work/bin/twain-peers-13a32a0}
W="--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --workloads fillrandom,updatezipf,scan100,scan1000 --quiet --dir /work/sweepdb"
for r in 1 2 3; do
  order=(8 2 0)
  case $r in 2) order=(2 0 8);; 3) order=(0 8 2);; esac
  for t in "${order[@]}"; do
    rm -rf /work/sweepdb; mkdir -p /work/sweepdb
    $B --engines twain --set prefetch_threads=$t $W --out ./r$r.t$t.jsonl > ./r$r.t$t.txt 2>&1
  done
done

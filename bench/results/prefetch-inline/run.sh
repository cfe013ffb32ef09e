#!/bin/bash
# Who reads a scan's prefetch window in memory: the prefetch threads when a value read
# takes at least prefetch_min_read_micros (default 10) on average, else the cursor itself.
# Right after an update burst value GC and compactions fill both cores, and a cached read
# preempted midway may be timed as a slow one. pool: the default; inline: the same binary
# with prefetch_min_read_micros=1000000 (the cursor always reads its own window). twain
# alone, scans-1k's workload in memory (2 M x 1 KiB, 2 M zipfian updates, scans, gets),
# RUNS runs, the order rotated. Binary: /work/bin/twain-new. Then: ../live-pass/summary.py-like
# ./summary.py
set -e
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
args="--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000"
args="$args --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --quiet --json"
vs=(pool inline)
for r in $(seq 1 "$RUNS"); do
  for i in 0 1; do
    v=${vs[$(( (i + r - 1) % 2 ))]}
    extra=""
    [ "$v" = inline ] && extra="--set prefetch_min_read_micros=1000000"
    rm -rf /work/sweepdb/db
    echo "$(date +%T) r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    /work/bin/twain-new $extra bench $args --db /work/sweepdb/db > "$here/mem1k.r$r.$v.jsonl" 2> "$here/mem1k.r$r.$v.err"
  done
done

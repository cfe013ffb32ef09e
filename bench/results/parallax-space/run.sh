#!/bin/bash
# Issue 11's space target (<= 1.3 at the end of Run A) by configuration: Parallax's M mix
# (all medium values, 101-1024 B; 1.5 M keys of 16 B; YCSB Load A, then 1.5 M Run A
# operations), twain's defaults (space_amp_target 1.3) against space_amp_target 1.15 (the
# background keeps to a lower figure during the run), twain alone, RUNS rounds, order
# rotated. Binary: /work/bin/twain-base (build ab4c50b; the engine of 487f1d5). Then:
# ./summary.py
set -e
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
vs=(default t115)
for r in $(seq 1 "$RUNS"); do
  for i in 0 1; do
    v=${vs[$(( (i + r - 1) % 2 ))]}
    extra=""
    [ "$v" = t115 ] && extra="--set space_amp_target=1.15"
    rm -rf /work/sweepdb/db
    echo "$(date +%T) r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    /work/bin/twain-base $extra bench --workloads ycsb-load,ycsb-a --value-size mix:0/100/0 \
      --num 1500000 --ops 1500000 --quiet --json --db /work/sweepdb/db \
      > "$here/m.r$r.$v.jsonl" 2> "$here/m.r$r.$v.err"
  done
done

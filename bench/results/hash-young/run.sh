#!/bin/bash
# Group GC leaves the log segments written since the group's last GC in place (judged for
# what they kill, merged at the group's next GC) instead of copying their records at once:
# base (build ab4c50b, /work/bin/twain-base) against young (the change,
# /work/bin/twain-young). HashKV's update experiment at 1 GiB (load 1 M x 1 KiB, three
# phases of 1 M updates, uniform and zipfian), twain's hash layout alone, RUNS rounds, order
# rotated. Then: ./summary.py [v1|v2] (each run moved by hand into v1/ or v2/)
set -e
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
vs=(base young)
for dist in uniform zipf; do
  case "$dist" in
    uniform) w=fillrandom,overwrite,overwrite,overwrite ;;
    zipf) w=fillrandom,updatezipf,updatezipf,updatezipf ;;
  esac
  for r in $(seq 1 "$RUNS"); do
    for i in 0 1; do
      v=${vs[$(( (i + r - 1) % 2 ))]}
      rm -rf /work/sweepdb/db
      echo "$(date +%T) $dist r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
      /work/bin/twain-$v --set value_layout=hash bench --workloads "$w" --num 1000000 \
        --value-size 1024 --overwrites 1000000 --quiet --json --db /work/sweepdb/db \
        > "$here/$dist.r$r.$v.jsonl" 2> "$here/$dist.r$r.$v.err"
    done
  done
done

#!/bin/bash
# The hash layout's group GC under load collects while the reserved pool's garbage is over
# half its budget (base, build ab4c50b), or over 0.8 of it (goal08: the same build with
# `r.budget / 2` in db/group_gc.rs's `round` made `r.budget / 10 * 8`). Under uniform updates
# every group holds garbage in the same share, so the share a group GC finds dead follows
# the pool's level: from about 0.37 to 0.55 by a model of round-robin collection, so GC would
# copy about 0.8 instead of 1.7 bytes per byte it frees. HashKV's update experiment at 1 GiB
# (load 1 M x 1 KiB, three phases of 1 M updates, uniform and zipfian), twain alone, RUNS
# rounds, order rotated. Binaries: /work/bin/twain-base and /work/bin/twain-goal08. Then:
# ./summary.py. VARIANTS names the two binaries (/work/bin/twain-NAME), OUT the directory
# the runs go to, DISTS the distributions (hash-young/run.sh runs it so).
set -e
here=${OUT:-$(cd "$(dirname "$0")" && pwd)}
RUNS=${RUNS:-3}
read -r -a vs <<< "${VARIANTS:-base goal08}"
for dist in ${DISTS:-uniform zipf}; do
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

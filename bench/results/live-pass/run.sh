#!/bin/bash
# The live-data pass no longer reruns after a value GC run's install (a file rewritten in
# place): the build before (old, 487f1d5) against the one after (new), twain alone, in
# memory, scans-1k's workload (2 M x 1 KiB, 2 M zipfian updates, then scans and gets while
# value GC collects), RUNS runs with the order rotated. Binaries: /work/bin/twain-old and
# /work/bin/twain-new (twain-cli release builds). Each run's JSON lines in
# mem1k.rN.VARIANT.jsonl, the CPU seconds of each thread (by name, over the whole run) in
# mem1k.rN.VARIANT.threads.json. STEP=ltm4k runs the gets of scans-4k-ltm's workload
# instead (1.25 M x 4 KiB in a 1 GiB memory cgroup, caches dropped before each phase:
# fill, zipfian updates, 200,000 gets), where session 43's profile found the live-data
# pass at 12% of the process's CPU during the gets. Then: ./summary.py [STEP]
set -e
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}
FIRST=${FIRST_ROUND:-1}
STEP=${STEP:-mem1k}
case "$STEP" in
  mem1k)
    args="--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000"
    args="$args --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom" ;;
  ltm4k)
    args="--num 1250000 --value-size 4096 --overwrites 1250000 --reads 200000"
    args="$args --workloads fillrandom,updatezipf,readrandom --memory-limit 1G --drop-caches" ;;
  *) echo "STEP: mem1k or ltm4k" >&2; exit 2 ;;
esac
args="$args --quiet --json"
vs=(old new)
dd if=/dev/zero of=/work/sweepdb/dd bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 >> "$here/disk.txt"
rm -f /work/sweepdb/dd
for r in $(seq "$FIRST" $((FIRST + RUNS - 1))); do
  for i in 0 1; do
    v=${vs[$(( (i + r - 1) % 2 ))]}
    rm -rf /work/sweepdb/db
    echo "$(date +%T) $STEP r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    /work/bin/twain-$v bench $args --db /work/sweepdb/db > "$here/$STEP.r$r.$v.jsonl" 2> "$here/$STEP.r$r.$v.err" &
    pid=$!
    "$here/threadcpu.py" $pid > "$here/$STEP.r$r.$v.threads.json"
    wait $pid
  done
done

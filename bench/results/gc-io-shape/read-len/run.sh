#!/bin/bash
# GC's short reads at 64 KiB instead of 256 KiB while users read (r64), and the same with its
# writes sent to the disk every 256 KiB (sync_file_range, r64wb); a trial build reading both
# from the environment. scans-4k-ltm's twain workload, rounds rotated.
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}; FIRST=${FIRST_ROUND:-1}
VARIANTS=${VARIANTS:-base r64 r64wb}
read -r -a vs <<< "$VARIANTS"; n=${#vs[@]}
for r in $(seq "$FIRST" $((FIRST + RUNS - 1))); do
  for i in $(seq 0 $((n - 1))); do
    v=${vs[$(( (i + r - 1) % n ))]}
    bin=/work/prof/twain-trial; envs=""
    case $v in
      base) bin=/work/prof/twain-base ;;
      r64) envs="TWAIN_TRIAL_READ=65536" ;;
      r64wb) envs="TWAIN_TRIAL_READ=65536 TWAIN_TRIAL_WB=262144" ;;
      r32) envs="TWAIN_TRIAL_READ=32768" ;;
    esac
    rm -rf /work/sweepdb/*; mkdir -p /work/sweepdb
    echo "$(date +%T) r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    env $envs $bin bench --num 1250000 --value-size 4096 --overwrites 1250000 --memory-limit 1G --drop-caches --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --dir /work/sweepdb/db --json > "$here/r$r.$v.jsonl" 2>&1
  done
done

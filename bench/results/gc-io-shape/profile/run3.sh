#!/bin/bash
label=$1; shift
rm -rf /work/sweepdb/*; mkdir -p /work/sweepdb
sync; echo 3 > /proc/sys/vm/drop_caches
/work/main/target/release/twain bench --num 1250000 --value-size 4096 --overwrites 1250000 --memory-limit 1G --drop-caches --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --dir /work/sweepdb/db --json "$@" > /work/prof/$label.jsonl 2>&1 &
bp=$!
until grep -q '"phase":"scankeys100"' /work/prof/$label.jsonl; do sleep 0.2; done
sleep 1.5
perf record -e sched:sched_switch -g -p $bp -o /work/prof/$label.perf -- sleep 8 2>/dev/null
wait $bp

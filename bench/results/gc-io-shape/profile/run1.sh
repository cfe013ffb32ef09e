#!/bin/bash
# $1 = label, rest = extra args
label=$1; shift
rm -rf /work/sweepdb/*; mkdir -p /work/sweepdb
sync; echo 3 > /proc/sys/vm/drop_caches
/work/main/target/release/twain bench --num 1250000 --value-size 4096 --overwrites 1250000 --memory-limit 1G --drop-caches --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --dir /work/sweepdb/db --json "$@" > /work/prof/$label.jsonl 2>&1 &
bp=$!
sleep 1
/work/prof/sched.py $bp /work/prof/$label.sched &
wait $bp

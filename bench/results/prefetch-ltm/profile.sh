#!/bin/bash
# Profile twain's 100-pair scans larger than memory: 3 M x 1 KiB in 600 MiB.
set -e
BIN=${BIN:?the twain-peers binary}
OUT=${OUT:-/tmp/prof}
mkdir -p $OUT; rm -rf ${DB:-/tmp/twain-prof-db}; mkdir -p ${DB:-/tmp/twain-prof-db}
$BIN --engines twain --num 3000000 --value-size 1024 --overwrites 3000000 --reads 50000 --scans 30000 \
  --workloads fillrandom,updatezipf,idle60,scan --memory-limit 600M --drop-caches \
  --quiet --dir ${DB:-/tmp/twain-prof-db} --out $OUT/run.jsonl > $OUT/run.txt 2>&1 &
pid=$!
# wait for the scan phase: the jsonl holds 3 phases (fill, updates, idle) once it starts
while [ "$(wc -l < $OUT/run.jsonl 2>/dev/null || echo 0)" -lt 3 ]; do sleep 1; done
sleep 8
perf record -F 999 -g -p $pid -o $OUT/perf.data -- sleep 15 2> $OUT/perf.err
wait $pid
rm -rf ${DB:-/tmp/twain-prof-db}

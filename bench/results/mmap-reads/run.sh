#!/bin/bash
# mmap_reads on and off, one twain-peers binary (bench/peers, release), three runs with
# the order rotated: the scans-1k step of bench/suite.sh (2 M x 1 KiB, 2 M zipfian updates,
# then scans and gets right after the burst). With LTM=1, the scans-1k-ltm step instead
# (5 M x 1 KiB in a 1 GiB memory cgroup, caches dropped between phases; needs root).
# With QUIET=1: 1 M x 1 KiB freshly loaded, then 100-pair scans and gets (no updates, so
# no GC or garbage compactions run beside the reads).
BIN=${BIN:-/work/target-peers/release/twain-peers}
DB=${DB:-/work/sweepdb}
RUNS=${RUNS:-3}
W="--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom"
if [ "${LTM:-0}" = 1 ]; then
  W="--num 5000000 --value-size 1024 --overwrites 5000000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --memory-limit 1G --drop-caches"
fi
if [ "${QUIET:-0}" = 1 ]; then
  W="--num 1000000 --value-size 1024 --scans 5000 --reads 300000 --workloads fillrandom,scan100,readrandom"
fi
cd "$(dirname "$0")"
p=""
[ "${LTM:-0}" = 1 ] && p="ltm."
[ "${QUIET:-0}" = 1 ] && p="quiet."

for r in $(seq 1 "$RUNS"); do
  order=(true false)
  [ $((r % 2)) = 0 ] && order=(false true)
  for m in "${order[@]}"; do
    rm -rf "$DB"; mkdir -p "$DB"
    echo "# $BIN --engines twain $W --set mmap_reads=$m" > ./${p}r$r.$m.txt
    $BIN --engines twain $W --dir "$DB" --set mmap_reads=$m --out ./${p}r$r.$m.jsonl >> ./${p}r$r.$m.txt 2>&1
  done
done

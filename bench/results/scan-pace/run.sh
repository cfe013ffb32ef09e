#!/bin/bash
# Issue 14: 100- and 1,000-pair scans right after a zipfian burst, the build before
# (19927f0) and a trial build (garbage compactions resting while users only read, not kept,
# and the scan-step allocations cut, kept), with RocksDB;
# three runs, order rotated. Binaries: twain-peers of each build (bench/peers).
BASE=${BASE:-/work/bin/twain-peers-19927f0}
NEW=${NEW:-/work/bin/twain-peers-gpace}
W="--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,readrandom --quiet --dir /work/sweepdb"
for r in 1 2 3; do
  order=("base" "new" "rocks")
  case $r in 2) order=("new" "rocks" "base");; 3) order=("rocks" "base" "new");; esac
  for e in "${order[@]}"; do
    rm -rf /work/sweepdb; mkdir -p /work/sweepdb
    case $e in
      base) $BASE --engines twain $W --out ./r$r.$e.jsonl > ./r$r.$e.txt 2>&1;;
      new) $NEW --engines twain $W --out ./r$r.$e.jsonl > ./r$r.$e.txt 2>&1;;
      rocks) $NEW --engines rocksdb $W --out ./r$r.$e.jsonl > ./r$r.$e.txt 2>&1;;
    esac
  done
done

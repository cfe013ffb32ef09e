#!/bin/bash
# Issue 13's 100 B fill: 30 M x (16 B key + 100 B value), twain and RocksDB at
# max_subcompactions 1 and 2, three runs, engine order and setting order rotated.
set -u
P=/work/target-peers/release/twain-peers
OUT=/work/bench-sub/results
mkdir -p $OUT
dd if=/dev/zero of=/work/bench-sub/dd.tmp bs=1M count=2048 oflag=direct conv=fdatasync 2>&1 | tail -1 > $OUT/disk.txt
rm -f /work/bench-sub/dd.tmp
for run in 1 2 3; do
  if [ $run = 2 ]; then engines=rocksdb,twain; else engines=twain,rocksdb; fi
  if [ $run = 1 ]; then subs="1 2"; else subs="2 1"; fi
  for sub in $subs; do
    echo "run $run sub $sub engines $engines $(date -u +%T)"
    $P --workloads fillrandom --num 30000000 --value-size 100 --engines $engines \
      --set max_subcompactions=$sub --dir /work/bench-sub/db \
      --out $OUT/r$run.sub$sub.jsonl --quiet > $OUT/r$run.sub$sub.txt 2>&1
  done
done
echo finished $(date -u +%T)

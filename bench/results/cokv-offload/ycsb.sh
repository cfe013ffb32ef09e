#!/bin/bash
# Zipfian updates with offload (Co-KV's YCSB experiment, scaled): `twain bench` alone,
# 1 M x 1 KiB fillrandom, then 4 M updates (scrambled zipfian 0.99, 4x the load); twain
# with one part, two parts, and two parts with one offloaded to a `twain compaction-worker` process; three runs, setting
# order rotated. Paths relative to the checkout; TWAIN overrides the binary.
set -u
cd "$(dirname "$0")/../../.."
T=${TWAIN:-target/release/twain}
OUT=bench/results/cokv-offload
mkdir -p $OUT/work
dd if=/dev/zero of=$OUT/work/dd.tmp bs=1M count=1024 oflag=direct conv=fdatasync 2>&1 | tail -1 > $OUT/ycsb-disk.txt
rm -f $OUT/work/dd.tmp
orders=("p1 p2 p2w" "p2 p2w p1" "p2w p1 p2")
for run in 1 2 3; do
  for cfg in ${orders[$((run - 1))]}; do
    case $cfg in
      p1) args="--set max_subcompactions=1" ;;
      p2) args="--set max_subcompactions=2" ;;
      p2w) args="--set max_subcompactions=2 --compaction-worker" ;;
    esac
    echo "run $run $cfg $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    rm -rf $OUT/work/db
    $T bench --workloads fillrandom,updatezipf --num 1000000 --overwrites 4000000 --value-size 1024 --json --dir $OUT/work/db \
      $args > $OUT/ycsb-r$run.$cfg.jsonl 2> $OUT/ycsb-r$run.$cfg.err
  done
done
rm -rf $OUT/work
echo finished $(date -u +%T)

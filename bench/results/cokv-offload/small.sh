#!/bin/bash
# A smaller offload comparison with `twain bench` alone (no RocksDB build needed):
# 10 M x (16 B key + 100 B value) fillrandom; twain with one part, two parts, and two
# parts with one offloaded to a `twain compaction-worker` process; three runs, setting
# order rotated. Paths relative to the checkout; TWAIN overrides the binary.
set -u
cd "$(dirname "$0")/../../.."
T=${TWAIN:-target/release/twain}
OUT=bench/results/cokv-offload
mkdir -p $OUT/work
[ -n "${CONFIGS:-}" ] || dd if=/dev/zero of=$OUT/work/dd.tmp bs=1M count=1024 oflag=direct conv=fdatasync 2>&1 | tail -1 > $OUT/small-disk.txt
rm -f $OUT/work/dd.tmp
# CONFIGS="p2wn" runs only the offloaded setting without the entry-by-entry check.
orders=("p1 p2 p2w" "p2 p2w p1" "p2w p1 p2")
if [ -n "${CONFIGS:-}" ]; then orders=("$CONFIGS" "$CONFIGS" "$CONFIGS"); fi
for run in 1 2 3; do
  for cfg in ${orders[$((run - 1))]}; do
    case $cfg in
      p1) args="--set max_subcompactions=1" ;;
      p2) args="--set max_subcompactions=2" ;;
      p2w) args="--set max_subcompactions=2 --compaction-worker" ;;
      p2wn) args="--set max_subcompactions=2 --compaction-worker --set compaction_offload_full_check=false" ;;
    esac
    echo "run $run $cfg $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    rm -rf $OUT/work/db
    $T bench --workloads fillrandom --num 10000000 --value-size 100 --json --dir $OUT/work/db \
      $args > $OUT/small-r$run.$cfg.jsonl 2> $OUT/small-r$run.$cfg.err
  done
done
rm -rf $OUT/work
echo finished $(date -u +%T)

#!/bin/bash
# Issue 13's 100 B fill with offload: 30 M x (16 B key + 100 B value). Per run: twain with
# one part (alone), then twain with two parts, twain with two parts and one offloaded to a
# `twain compaction-worker` process (twain-worker), and RocksDB, all at
# max_subcompactions 2, engine order rotated; three runs. Paths relative to the checkout;
# TWAIN_PEERS, TWAIN and WORK override the binaries and the scratch directory.
set -u
cd "$(dirname "$0")/../../.."
P=${TWAIN_PEERS:-${CARGO_TARGET_DIR:-target}/release/twain-peers}
T=${TWAIN:-target/release/twain}
WORK=${WORK:-bench/results/cokv-offload/work}
OUT=bench/results/cokv-offload
mkdir -p "$WORK"
dd if=/dev/zero of="$WORK/dd.tmp" bs=1M count=2048 oflag=direct conv=fdatasync 2>&1 | tail -1 > $OUT/disk.txt
rm -f "$WORK/dd.tmp"
orders=("twain,twain-worker,rocksdb" "twain-worker,rocksdb,twain" "rocksdb,twain,twain-worker")
for run in 1 2 3; do
  engines=${orders[$((run - 1))]}
  one() {
    echo "run $run one part $(date -u +%T)"
    $P --workloads fillrandom --num 30000000 --value-size 100 --engines twain \
      --set max_subcompactions=1 --dir "$WORK/db" \
      --out $OUT/r$run.sub1.jsonl --quiet > $OUT/r$run.sub1.txt 2>&1
  }
  [ $run = 2 ] && one
  echo "run $run two parts $engines $(date -u +%T)"
  $P --workloads fillrandom --num 30000000 --value-size 100 --engines $engines \
    --set max_subcompactions=2 --twain-exe "$T" --dir "$WORK/db" \
    --out $OUT/r$run.sub2.jsonl --quiet > $OUT/r$run.sub2.txt 2>&1
  [ $run != 2 ] && one
done
echo finished $(date -u +%T)

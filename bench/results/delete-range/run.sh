#!/usr/bin/env bash
# Issue 17: range deletion. Deleting half of 1,000,000 keys × 1 KiB one key at a time
# (deleterandom: 500,000 point deletes, random order) against range deletions of 100,
# 1,000 and 100,000 consecutive keys (deleterangeN: the first 500,000 keys); then 200,000
# random gets (half the keys are gone). --settle flushes after each write phase: its time
# is `settle_secs` (the flush that turns range deletions into tombstones), its CPU and I/O
# count in the phase. Three rounds, the order of the modes rotated; twain alone.
# usage: bench/results/delete-range/run.sh   (from the repository root; about 4 min)
set -euo pipefail
here=bench/results/delete-range
out=$here/runs
bin=${CARGO_TARGET_DIR:-target}/release/twain
db=$here/db
mkdir -p "$out"
dd if=/dev/zero of="$here/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f "$here/dd.tmp"
modes=(deleterandom deleterange100 deleterange1000 deleterange100000)
for round in 1 2 3; do
  for i in 0 1 2 3; do
    mode=${modes[$(( (i + round) % 4 ))]}
    rm -rf "$db"
    "$bin" bench --db "$db" --json --settle --num 1000000 --value-size 1K \
      --workloads "fillrandom,$mode,readrandom" --deletes 500000 --reads 200000 \
      > "$out/$mode-$round.json" 2> "$out/$mode-$round.err"
  done
done
rm -rf "$db"
python3 "$here/summary.py" "$here" > "$here/results.md"
cat "$here/results.md"

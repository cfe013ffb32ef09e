#!/usr/bin/env bash
# Issue 17: zero-copy reads. Copying reads (Db::get, Db::range) against pinned ones
# (Db::get_pinned, Db::range_pinned: `twain bench --pinned-reads`) on three value shapes:
# 1 KiB and 4 KiB values kept inline (inline_threshold raised: the tables hold them), and
# 64 KiB separated values. fillrandom, readrandom, scan (100 pairs); three rounds, order
# rotated; twain alone, the same build both ways.
# usage: bench/results/zero-copy/run.sh   (from the repository root; about 3 min)
set -euo pipefail
here=bench/results/zero-copy
out=$here/runs
bin=${CARGO_TARGET_DIR:-target}/release/twain
db=$here/db
mkdir -p "$out"
dd if=/dev/zero of="$here/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f "$here/dd.tmp"
one() { # NAME MODE BENCH-ARGS...
  local name=$1 mode=$2
  shift 2
  rm -rf "$db"
  local flag=()
  [ "$mode" = pinned ] && flag=(--pinned-reads)
  "$bin" bench --dir "$db" --json "${flag[@]}" "$@" \
    > "$out/$name-$mode-$round.json" 2> "$out/$name-$mode-$round.err"
}
for round in 1 2 3; do
  if [ $((round % 2)) = 1 ]; then order="copy pinned"; else order="pinned copy"; fi
  for mode in $order; do
    one inline4k "$mode" --num 200000 --value-size 4K --set inline_threshold=8K \
      --workloads fillrandom,readrandom,scan --reads 400000 --scans 5000
    one sep64k "$mode" --num 20000 --value-size 64K \
      --workloads fillrandom,readrandom,scan --reads 100000 --scans 2000
    one inline1k "$mode" --num 500000 --value-size 1K --set inline_threshold=2K \
      --workloads fillrandom,readrandom,scan --reads 500000 --scans 5000
  done
done
rm -rf "$db"
python3 "$here/summary.py" "$here" > "$here/results.md"
cat "$here/results.md"

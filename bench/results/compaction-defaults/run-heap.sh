#!/usr/bin/env bash
# The merging iterator as a heap (against the linear scan it replaced), and the compaction
# defaults again on top of it: three twain configurations and RocksDB, three rounds, the
# order rotated, one engine per twain-peers process:
#   old       the build before the heap (LINEAR_PEERS), old shape (static, 64 MiB, trigger 4)
#   old-heap  the heap build (HEAP_PEERS), old shape
#   new-heap  the heap build, new shape (static, l1_target_size 256 MiB, trigger 8)
# on the 15 M x 100 B fill (+ 30 s idle; RocksDB beside it) and issue 3's 100 B scale.
#
#   bench/results/compaction-defaults/run-heap.sh LINEAR_PEERS HEAP_PEERS [OUT]  (~30 min)
set -euo pipefail
linear=${1:?usage: run-heap.sh LINEAR_PEERS HEAP_PEERS [OUT]}
heap=${2:?usage: run-heap.sh LINEAR_PEERS HEAP_PEERS [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
out=${3:-$here/out-heap}
mkdir -p "$out"
db=$(mktemp -d)
dd if=/dev/zero of="$db/dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$out/disk.txt"
rm -f "$db/dd"
old=(--set level_sizing=static --set l1_target_size=64M --set l0_compaction_trigger=4)
new=(--set level_sizing=static --set l1_target_size=256M --set l0_compaction_trigger=8)
run() { # workload name round
  local w=$1 name=$2 round=$3 bin=$heap args=()
  case $name in
    old) bin=$linear; args=(--engines twain "${old[@]}") ;;
    old-heap) args=(--engines twain "${old[@]}") ;;
    new-heap) args=(--engines twain "${new[@]}") ;;
    rocksdb) args=(--engines rocksdb) ;;
  esac
  case $w in
    fill) args+=(--workloads fillrandom,idle30 --num 15000000 --value-size 100) ;;
    100b) args+=(--scale 100b) ;;
  esac
  rm -rf "$db/db"
  echo "$w $name round $round (load $(cut -d' ' -f1-3 /proc/loadavg)): $bin ${args[*]}" | tee -a "$out/runs.txt" >&2
  "$bin" "${args[@]}" --dir "$db/db" --quiet --out "$out/$w-$name-r$round.jsonl" > "$out/$w-$name-r$round.txt" 2>&1
}
orders=("old old-heap new-heap rocksdb" "old-heap new-heap rocksdb old" "new-heap rocksdb old old-heap")
for round in 1 2 3; do
  for n in ${orders[$((round - 1))]}; do run fill "$n" "$round"; done
  for n in ${orders[$((round - 1))]}; do [ "$n" = rocksdb ] || run 100b "$n" "$round"; done
done
rm -rf "$db"

#!/usr/bin/env bash
# Compaction defaults (issue 13): the old shape (static sizing, l1_target_size 64 MiB,
# l0_compaction_trigger 4) against the new (static, 256 MiB, 8), on three workloads, three
# rounds, the order rotated, one engine per twain-peers process:
#   fill    15 M x 100 B random fill, then 30 s idle (the backlog counted), beside RocksDB;
#   100b    issue 3's 100 B scale (2 M keys: fill, reads, zipfian updates, idle, reads, scans);
#   1k      issue 3's 1 KiB scale (1 M keys, the same phases).
#
#   bench/results/compaction-defaults/run.sh PEERS_BINARY [OUT]    (about 35 minutes)
set -euo pipefail
peers=${1:?usage: run.sh PEERS_BINARY [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/out}
mkdir -p "$out"
db=$(mktemp -d)
dd if=/dev/zero of="$db/dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$out/disk.txt"
rm -f "$db/dd"
old=(--set level_sizing=static --set l1_target_size=64M --set l0_compaction_trigger=4)
new=(--set level_sizing=static --set l1_target_size=256M --set l0_compaction_trigger=8)
run() { # workload name round
  local w=$1 name=$2 round=$3 args=()
  case $name in
    old) args=(--engines twain "${old[@]}") ;;
    new) args=(--engines twain "${new[@]}") ;;
    rocksdb) args=(--engines rocksdb) ;;
  esac
  case $w in
    fill) args+=(--workloads fillrandom,idle30 --num 15000000 --value-size 100) ;;
    100b) args+=(--scale 100b) ;;
    1k) args+=(--scale 1k) ;;
  esac
  rm -rf "$db/db"
  echo "$w $name round $round (load $(cut -d' ' -f1-3 /proc/loadavg)): ${args[*]}" | tee -a "$out/runs.txt" >&2
  "$peers" "${args[@]}" --dir "$db/db" --quiet --out "$out/$w-$name-r$round.jsonl" > "$out/$w-$name-r$round.txt" 2>&1
}
for round in 1 2 3; do
  case $round in 1) fill="old new rocksdb" two="old new" ;; 2) fill="new rocksdb old" two="new old" ;; 3) fill="rocksdb old new" two="old new" ;; esac
  for n in $fill; do run fill "$n" "$round"; done
  for n in $two; do run 100b "$n" "$round"; done
  for n in $two; do run 1k "$n" "$round"; done
done
rm -rf "$db"

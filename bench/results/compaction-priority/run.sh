#!/bin/bash
# Compaction priority and the dynamic base against the old defaults, beside RocksDB, on a
# random fill of 100 B values followed by scrambled-zipfian updates three times the data
# and 30 s without foreground work (so every engine's compaction backlog is done and
# counted): three rounds, the order rotated, one engine per process; compaction bytes per
# level from twain's LOG (info_log).
#
#   bench/results/compaction-priority/run.sh PEERS_BINARY [NUM]
#
# PEERS_BINARY: a twain-peers build (bench/peers/README.md). NUM: keys (default 10,000,000).
set -euo pipefail
peers=${1:?usage: run.sh PEERS_BINARY [NUM]}
num=${2:-10000000}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out-$num
mkdir -p "$out"
dd if=/dev/zero of="$out/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 | tee "$out/disk.txt"
rm -f "$out/dd.tmp"
common=(--workloads fillrandom,updatezipf,idle30 --num "$num" --overwrites $((num * 3)) --value-size 100)
run() { # name, round
    local name=$1 round=$2 dir=$out/db-$1
    rm -rf "$dir"
    echo "# $name round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.txt"
    case $name in
        old)  cmd=("$peers" --engines twain "${common[@]}" --dir "$dir" --keep --set info_log=true
                   --set level_sizing=static --set compaction_priority=round-robin) ;;
        new)  cmd=("$peers" --engines twain "${common[@]}" --dir "$dir" --keep --set info_log=true) ;;
        rocksdb) cmd=("$peers" --engines rocksdb "${common[@]}" --dir "$dir") ;;
    esac
    cmd+=(--out "$out/$name-r$round.jsonl")
    echo "${cmd[*]}" | tee -a "$out/runs.txt"
    "${cmd[@]}" > "$out/$name-r$round.txt" 2>&1
    if [ "$name" != rocksdb ]; then
        python3 "$here/../level-sizing/levels.py" "$(find "$dir" -name LOG | head -1)" > "$out/$name-r$round.levels"
    fi
    rm -rf "$dir"
}
orders=("old new rocksdb" "new rocksdb old" "rocksdb old new")
for round in 1 2 3; do
    for name in ${orders[$((round - 1))]}; do
        run "$name" "$round"
    done
done

#!/bin/bash
# Level sizing (static against dynamic) on a random fill of 100 B values, beside RocksDB:
# three rounds, the order rotated, one engine per process; compaction bytes per level from
# twain's LOG (info_log) and RocksDB's own compaction table. The fill is followed by 30 s
# without foreground work, so each engine's compaction backlog (RocksDB ends a fill with
# L0 full and more than a gigabyte pending) is done and counted.
#
#   bench/results/level-sizing/run.sh PEERS_BINARY [NUM]
#
# PEERS_BINARY: a twain-peers build (bench/peers/README.md). NUM: keys (default 15,000,000).
set -euo pipefail
peers=${1:?usage: run.sh PEERS_BINARY [NUM]}
num=${2:-15000000}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out-$num
mkdir -p "$out"
dd if=/dev/zero of="$out/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 | tee "$out/disk.txt"
rm -f "$out/dd.tmp"
run() { # name, round
    local name=$1 round=$2 dir=$out/db-$1
    rm -rf "$dir"
    echo "# $name round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.txt"
    case $name in
        static|dynamic)
            cmd=("$peers" --engines twain --workloads fillrandom,idle30 --num "$num" --value-size 100
                 --dir "$dir" --keep --set info_log=true --set "level_sizing=$name"
                 --out "$out/$name-r$round.jsonl") ;;
        rocksdb)
            cmd=("$peers" --engines rocksdb --workloads fillrandom,idle30 --num "$num" --value-size 100
                 --dir "$dir" --out "$out/$name-r$round.jsonl") ;;
    esac
    echo "${cmd[*]}" | tee -a "$out/runs.txt"
    TWAIN_PEERS_ROCKSDB_STATS=1 "${cmd[@]}" > "$out/$name-r$round.txt" 2>&1
    if [ "$name" != rocksdb ]; then
        python3 "$here/levels.py" "$(find "$dir" -name LOG | head -1)" > "$out/$name-r$round.levels"
    fi
    rm -rf "$dir"
}
orders=("static dynamic rocksdb" "dynamic rocksdb static" "rocksdb static dynamic")
for round in 1 2 3; do
    for name in ${orders[$((round - 1))]}; do
        run "$name" "$round"
    done
done

#!/bin/bash
# Scans whose values are in the page cache: the cursor reads its window in one batch
# (after) against one pread per value (before). twain alone, 1 M x 1 KiB: fill, a million
# zipfian updates (value GC running), 100-pair scans at once, then a minute idle (GC done)
# and scans of 100, 10 and 1,000 pairs; three rounds with the order alternating, one
# process per run.
#
#   bench/results/cursor-batch/run.sh BEFORE_PEERS AFTER_PEERS
set -euo pipefail
before=${1:?usage: run.sh BEFORE_PEERS AFTER_PEERS}
after=${2:?usage: run.sh BEFORE_PEERS AFTER_PEERS}
out=$(cd "$(dirname "$0")" && pwd)
db=${CURSOR_BATCH_DB:-/tmp/cursor-batch-db}
dd if=/dev/zero of="$out/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 | tee "$out/disk.txt"
rm -f "$out/dd.tmp"
run() { # name, round
    local name=$1 round=$2 bin
    case $name in before) bin=$before ;; after) bin=$after ;; esac
    rm -rf "$db"
    echo "# $name round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.txt"
    cmd=("$bin" --engines twain --num 1000000 --value-size 1024 --overwrites 1000000
        --scans 10000 --dir "$db" --out "$out/$name-r$round.jsonl"
        --workloads fillrandom,updatezipf,scan100,idle60,scan100,scan10,scan1000)
    echo "${cmd[*]}" | tee -a "$out/runs.txt"
    "${cmd[@]}" > "$out/$name-r$round.txt" 2>&1
    rm -rf "$db"
}
orders=("before after" "after before" "before after")
for round in 1 2 3; do
    for name in ${orders[$((round - 1))]}; do
        run "$name" "$round"
    done
done

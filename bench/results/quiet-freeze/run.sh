#!/bin/bash
# A quiet garbage compaction takes the memtable along: before against after, twain alone,
# the headline 100 B workload (--scale 100b: 2 M x 100 B fill, reads, 2 M zipfian updates,
# idle60, reads, scans); three rounds with the order alternating, one process per run.
#
#   bench/results/quiet-freeze/run.sh BEFORE_PEERS AFTER_PEERS
set -euo pipefail
before=${1:?usage: run.sh BEFORE_PEERS AFTER_PEERS}
after=${2:?usage: run.sh BEFORE_PEERS AFTER_PEERS}
out=$(cd "$(dirname "$0")" && pwd)
dd if=/dev/zero of="$out/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 | tee "$out/disk.txt"
rm -f "$out/dd.tmp"
run() { # name, round
    local name=$1 round=$2 bin dir=/tmp/quiet-freeze-db
    case $name in before) bin=$before ;; after) bin=$after ;; esac
    rm -rf "$dir"
    echo "# $name round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.txt"
    cmd=("$bin" --engines twain --scale 100b --dir "$dir" --out "$out/$name-r$round.jsonl")
    echo "${cmd[*]}" | tee -a "$out/runs.txt"
    "${cmd[@]}" > "$out/$name-r$round.txt" 2>&1
    rm -rf "$dir"
}
orders=("before after" "after before" "before after")
for round in 1 2 3; do
    for name in ${orders[$((round - 1))]}; do
        run "$name" "$round"
    done
done

#!/bin/bash
# Joined batch records in the value log, before against after, twain alone: a random fill
# of 100 B values (inline: one-put batches), scrambled-zipfian updates three times the
# data and 30 s without foreground work; three rounds with the order alternating, one
# engine per process.
#
#   bench/results/joined-records/run.sh BEFORE_PEERS AFTER_PEERS [NUM]
#
# BEFORE_PEERS, AFTER_PEERS: twain-peers builds (bench/peers/README.md) of the two
# commits. NUM: keys (default 10,000,000). OUT: the results directory (default
# out-NUM beside this script); other before/after comparisons of the same workload
# (bench/results/inline-logs) use it.
set -euo pipefail
before=${1:?usage: run.sh BEFORE_PEERS AFTER_PEERS [NUM]}
after=${2:?usage: run.sh BEFORE_PEERS AFTER_PEERS [NUM]}
num=${3:-10000000}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out-$num}
mkdir -p "$out"
dd if=/dev/zero of="$out/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 | tee "$out/disk.txt"
rm -f "$out/dd.tmp"
common=(--engines twain --workloads fillrandom,updatezipf,idle30 --num "$num"
        --overwrites $((num * 3)) --value-size 100)
run() { # name, round
    local name=$1 round=$2 dir=$out/db-$1 bin
    case $name in before) bin=$before ;; after) bin=$after ;; esac
    rm -rf "$dir"
    echo "# $name round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.txt"
    cmd=("$bin" "${common[@]}" --dir "$dir" --out "$out/$name-r$round.jsonl")
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

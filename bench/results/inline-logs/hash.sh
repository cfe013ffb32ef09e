#!/usr/bin/env bash
# The hash layout (value_layout=hash), whose log holds every value inline for recovery
# only, before against after "inline log files deleted unsynced": issue 12's zipfian update
# experiment (load 1 M x 1 KiB, three phases of 1 M scrambled-zipfian updates), twain
# alone, three rounds with the order alternating, one engine per process.
#
#   bench/results/inline-logs/hash.sh BEFORE_PEERS AFTER_PEERS [OUT]
#
# Medians: bench/gc-modes-summary.py OUT (as in bench/results/hashkv-peers).
set -euo pipefail
before=${1:?usage: hash.sh BEFORE_PEERS AFTER_PEERS [OUT]}
after=${2:?usage: hash.sh BEFORE_PEERS AFTER_PEERS [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
out=${3:-$here/hash}
db=$(mktemp -d)
dd if=/dev/zero of="$db/dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 | tee "$out.disk.txt"
rm -f "$db/dd"
orders=("before after" "after before" "before after")
for round in 1 2 3; do
  mkdir -p "$out/$round"
  for name in ${orders[$((round - 1))]}; do
    case $name in before) bin=$before ;; after) bin=$after ;; esac
    rm -rf "$db/db"
    echo "round $round: $name (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/runs.txt" >&2
    "$bin" --engines twain --set value_layout=hash --workloads fillrandom,updatezipf,updatezipf,updatezipf \
      --num 1000000 --value-size 1024 --overwrites 1000000 --dir "$db/db" --quiet \
      --out "$out/$round/$name.jsonl" > "$out/$round/$name.txt" 2>&1
  done
done
rm -rf "$db"
python3 "$here/../../gc-modes-summary.py" "$out" | tee "$out.md"

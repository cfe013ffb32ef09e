#!/usr/bin/env bash
# Issue 4's value-GC comparison: the same update-heavy workload on one release build with
# GC in drop-records mode, in lsm-lookup mode and off (plus two other thresholds), one
# configuration after the other, repeated ROUNDS times. Writes one JSONL file per run and
# configuration into OUT, then prints medians (bench/gc-modes-summary.py).
#
# usage: bench/gc-modes.sh OUT [ROUNDS]      (from the repository root; about 80 s per round)
set -euo pipefail
out=${1:?usage: bench/gc-modes.sh OUT [ROUNDS]}
rounds=${2:-3}
target=${CARGO_TARGET_DIR:-target}
cargo build --release -p twain-cli
twain=$target/release/twain
configs=(
  "dr50:gc_mode=drop-records"
  "ll50:gc_mode=lsm-lookup"
  "off:gc=off"
  "dr35:gc_mode=drop-records,gc_threshold=0.35"
  "dr75:gc_mode=drop-records,gc_threshold=0.75"
)
db=$(mktemp -d)/db
for round in $(seq 1 "$rounds"); do
  mkdir -p "$out/$round"
  for cfg in "${configs[@]}"; do
    name=${cfg%%:*}
    sets=()
    IFS=, read -ra kv <<< "${cfg#*:}"
    for s in "${kv[@]}"; do sets+=(--set "$s"); done
    rm -rf "$db"
    echo "round $round: $name (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    "$twain" "${sets[@]}" bench --workloads fillrandom,updatezipf,readrandomsame \
      --num 1000000 --overwrites 2000000 --reads 200000 --quiet --dir "$db" --json \
      > "$out/$round/$name.jsonl" 2> "$out/$round/$name.err"
  done
done
rm -rf "$(dirname "$db")"
python3 "$(dirname "$0")/gc-modes-summary.py" "$out"

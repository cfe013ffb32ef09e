#!/usr/bin/env bash
# Value-GC comparisons on one release build: the same workload with GC in each
# configuration, repeated ROUNDS times with the configuration order rotated each round.
# Writes one JSONL file per run and configuration into OUT, then prints medians
# (bench/gc-modes-summary.py).
#
# Issue 4's comparison (the defaults): drop-records, lsm-lookup and GC off (plus two other
# thresholds) on 1 M x 1 KiB, 2 M zipfian overwrites, reads (about 80 s per round).
# Environment overrides:
#   CONFIGS    space-separated NAME:opt=v,opt=v configurations
#   WORKLOADS  twain bench phases        NUM, OVERWRITES, READS  their sizes
#   EXTRA      more `twain bench` arguments (word-split)
#
# usage: bench/gc-modes.sh OUT [ROUNDS]      (from the repository root)
set -euo pipefail
out=${1:?usage: bench/gc-modes.sh OUT [ROUNDS]}
rounds=${2:-3}
target=${CARGO_TARGET_DIR:-target}
cargo build --release -p twain-cli
twain=$target/release/twain
read -ra configs <<< "${CONFIGS:-dr50:gc_mode=drop-records ll50:gc_mode=lsm-lookup off:gc=off dr35:gc_mode=drop-records,gc_threshold=0.35 dr75:gc_mode=drop-records,gc_threshold=0.75}"
workloads=${WORKLOADS:-fillrandom,updatezipf,readrandomsame}
read -ra extra <<< "${EXTRA:-}"
db=$(mktemp -d)/db
for round in $(seq 1 "$rounds"); do
  mkdir -p "$out/$round"
  n=${#configs[@]}
  for i in $(seq 0 $((n - 1))); do
    cfg=${configs[$(((i + round - 1) % n))]}
    name=${cfg%%:*}
    sets=()
    IFS=, read -ra kv <<< "${cfg#*:}"
    for s in "${kv[@]}"; do sets+=(--set "$s"); done
    rm -rf "$db"
    echo "round $round: $name (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    "$twain" "${sets[@]}" bench --workloads "$workloads" \
      --num "${NUM:-1000000}" --overwrites "${OVERWRITES:-2000000}" --reads "${READS:-200000}" \
      "${extra[@]}" --quiet --dir "$db" --json \
      > "$out/$round/$name.jsonl" 2> "$out/$round/$name.err"
  done
done
rm -rf "$(dirname "$db")"
python3 "$(dirname "$0")/gc-modes-summary.py" "$out"

#!/usr/bin/env bash
# Parallax's evaluation (issue 11, docs/benchmarks-history.md Run 9): YCSB Load A then Run A on the
# value-size mixes of Parallax's Table 1 — S, M, L (all small / medium / large) and SD, MD,
# LD (60/20/20, 20/60/20, 20/20/60) — for twain with three placement classes, twain-ms
# (medium folded into small), twain-ml (medium folded into large), RocksDB and BlobDB, in one
# run per mix, RUNS runs with the engine order rotated. Then bench/parallax-summary.py.
#
# Build first: (cd bench/peers && cargo build --release); BIN names the binary if
# CARGO_TARGET_DIR moved it.
set -euo pipefail
BIN=${BIN:-${CARGO_TARGET_DIR:-bench/peers/target}/release/twain-peers}
OUT=${OUT:-bench/results/run9}
NUM=${NUM:-500000}
RUNS=${RUNS:-3}
MIXES=${MIXES:-"m md s sd l ld"}
DIR=${DIR:-${TMPDIR:-/tmp}/twain-parallax-db}
# The three-class thresholds (Parallax's 120 B / 1 KiB boundaries, rounded), whatever
# twain's defaults are; twain-ms and twain-ml fold medium from these.
PLACEMENT=${PLACEMENT:-"--set medium_threshold=128 --set inline_threshold=1024"}
EXTRA=${EXTRA:-}
engines=(twain twain-ms twain-ml rocksdb blobdb)
mkdir -p "$OUT"
spec() {
    case "$1" in
        s) echo "mix:100/0/0" ;;
        m) echo "mix:0/100/0" ;;
        l) echo "mix:0/0/100" ;;
        *) echo "$1" ;;
    esac
}
for run in $(seq 1 "$RUNS"); do
    shift_by=$(( (run - 1) % ${#engines[@]} ))
    order=("${engines[@]:$shift_by}" "${engines[@]:0:$shift_by}")
    order=$(IFS=,; echo "${order[*]}")
    for mix in $MIXES; do
        echo "== run $run mix $mix engines $order ($(date -u +%H:%M:%S))"
        # shellcheck disable=SC2086
        "$BIN" --engines "$order" --workloads ycsb-load,ycsb-a --value-size "$(spec "$mix")" \
            --num "$NUM" --ops "$NUM" --quiet --dir "$DIR" $PLACEMENT $EXTRA \
            --out "$OUT/$mix-r$run.jsonl" > "$OUT/$mix-r$run.txt" 2>&1
    done
done

#!/usr/bin/env bash
# One `twain serve` node reached directly against three nodes behind twemproxy
# (scripts/cluster.sh), with redis-benchmark, ROUNDS rounds with the order of the two
# set-ups rotated; prints each run's SET and GET throughput, p50, p99 and max latency
# (redis-benchmark's CSV), then the medians. Release build, --sync never, a fresh
# database per run.
#
#   bench/results/cluster/run.sh [ROUNDS]     (REQUESTS, CLIENTS, PIPELINE, SIZE override)
set -euo pipefail
cd "$(dirname "$0")/../../.."
rounds="${1:-3}"
bin="${CARGO_TARGET_DIR:-target}/release/twain"
[ -x "$bin" ] || { echo "build it first: cargo build --release -p twain-cli" >&2; exit 1; }
export TWAIN_BIN="$bin"
bench=(-t set,get -n "${REQUESTS:-500000}" -r 1000000 -d "${SIZE:-100}"
    -P "${PIPELINE:-16}" -c "${CLIENTS:-50}" --csv)
work="$(mktemp -d)"
trap 'scripts/cluster.sh stop "$work/c" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

run() { # SETUP -> lines "SETUP TEST rps p50 p99 max"
    rm -rf "$work/c"
    local nodes port
    case "$1" in
        direct) nodes=1 ;;
        proxy3) nodes=3 ;;
    esac
    port="$(scripts/cluster.sh start "$work/c" "$nodes" never 2>/dev/null)"
    if [ "$1" = direct ]; then
        # shellcheck disable=SC1091
        . "$work/c/cluster.env"
        port="$NODE_PORTS"
    fi
    redis-benchmark -p "$port" "${bench[@]}" 2>/dev/null | tr -d '"' \
        | awk -F, -v s="$1" '$1=="SET"||$1=="GET" {print s, $1, $2, $5, $7, $8}'
    scripts/cluster.sh stop "$work/c" >/dev/null 2>&1
}

echo "redis-benchmark ${bench[*]}"
echo "setup test rps p50_ms p99_ms max_ms"
all="$work/all"
for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order=(direct proxy3); else order=(proxy3 direct); fi
    for setup in "${order[@]}"; do
        run "$setup" | tee -a "$all"
    done
done
echo "medians over $rounds rounds:"
for setup in direct proxy3; do
    for t in SET GET; do
        awk -v s="$setup" -v t="$t" '$1==s && $2==t' "$all" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin]
cols = list(zip(*rows))
med = [statistics.median(float(x) for x in c) for c in cols[2:]]
print("%s %s %.0f ops/s  p50 %.3f  p99 %.3f  max %.3f ms" % (rows[0][0], rows[0][1], *med))'
    done
done

#!/usr/bin/env bash
# Benchmark `twain serve` against redis-server with redis-benchmark, one after the other on
# the same machine, and print each run's SET and GET throughput and the server's memory
# (VmRSS at the end, VmHWM peak) from /proc. Needs a release build
# (`cargo build --release -p twain-cli`) and Debian's redis-server and redis-tools.
#
#   scripts/bench-server.sh [RUNS] [TWAIN_SERVE_ARGS...]   e.g. scripts/bench-server.sh 3 --sync never
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
shift || true
twain_args=("$@")
[ ${#twain_args[@]} -gt 0 ] || twain_args=(--sync never)
bin="${CARGO_TARGET_DIR:-target}/release/twain"
[ -x "$bin" ] || { echo "build it first: cargo build --release -p twain-cli" >&2; exit 1; }
bench=(-q -t set,get -n "${BENCH_N:-1000000}" -r 1000000 -d 1024 -P 16 -c 50)
work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT

wait_ping() { # PORT
    for _ in $(seq 1 200); do
        [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    echo "server on port $1 did not answer" >&2
    exit 1
}

measure() { # NAME PORT
    local out mem
    out="$(redis-benchmark -p "$2" "${bench[@]}" 2>&1 | tr '\r' '\n' | grep -E '^(SET|GET): [0-9.]+ requests per second')"
    mem="$(grep -E '^(VmRSS|VmHWM)' "/proc/$pid/status" | awk '{printf "%s %d MiB  ", $1, $2/1024}')"
    printf '%-6s %s | %s\n' "$1" "$(printf '%s' "$out" | awk '{printf "%s %s  ", $1, $2}')" "$mem"
}

for run in $(seq 1 "$runs"); do
    rm -rf "$work/twain" "$work/redis"
    mkdir -p "$work/redis"
    "$bin" serve --db "$work/twain" --addr 127.0.0.1:6391 "${twain_args[@]}" >"$work/twain.log" 2>&1 &
    pid=$!
    wait_ping 6391
    measure "twain" 6391
    kill -TERM "$pid"; wait "$pid"; pid=""

    redis-server --port 6390 --appendonly yes --appendfsync everysec --save '' \
        --dir "$work/redis" --daemonize no >"$work/redis.log" 2>&1 &
    pid=$!
    wait_ping 6390
    measure "redis" 6390
    redis-cli -p 6390 shutdown nosave >/dev/null 2>&1 || true
    wait "$pid" || true; pid=""
    echo "run $run done"
done

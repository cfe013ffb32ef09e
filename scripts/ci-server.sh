#!/usr/bin/env bash
# CI for `twain serve` with real Redis tools: a redis-cli smoke test (every reply checked)
# and a short redis-benchmark, against the debug `twain` binary that `cargo test` builds,
# then a SIGTERM that must end the server with status 0.
#
# Run after `cargo test --workspace --locked` (it builds target/debug/twain); builds the
# binary itself if it is missing. Installs Debian's redis-tools if redis-cli is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'ci-server: %s\n' "$*"; }
fail() { printf 'ci-server: FAILED: %s\n' "$*" >&2; exit 1; }

if ! command -v redis-cli >/dev/null || ! command -v redis-benchmark >/dev/null; then
    log "installing redis-tools"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-tools >/dev/null
fi

bin="${CARGO_TARGET_DIR:-target}/debug/twain"
if [ ! -x "$bin" ]; then
    log "building $bin"
    cargo build --locked -p twain-cli
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Port 0: the server picks a free port and prints it.
"$bin" serve --db "$work/db" --addr 127.0.0.1:0 --sync batch >"$work/out.log" 2>"$work/err.log" &
server_pid=$!
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$work/out.log")"
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || fail "server exited: $(cat "$work/err.log")"
    sleep 0.1
done
[ -n "$port" ] || fail "server did not start listening"
log "twain serve (pid $server_pid) on port $port"

cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
expect() { # expect WANT COMMAND...
    local want="$1"; shift
    local got
    got="$(cli "$@")"
    [ "$got" = "$want" ] || fail "redis-cli $*: want $(printf %q "$want"), got $(printf %q "$got")"
}

expect PONG PING
expect OK SET greeting "hello world"
expect "hello world" GET greeting
expect 1 INCR counter
expect 11 INCRBY counter 10
expect OK MSET user:1 ann user:2 bob user:10 cid item:1 pen
expect "$(printf 'ann\nbob\n\npen')" MGET user:1 user:2 nosuch item:1
expect "$(printf '0\nuser:1\nuser:10\nuser:2')" SCAN 0 MATCH 'user:*' COUNT 100
[ "$(cli --scan --pattern 'user:*' | sort | tr '\n' ' ')" = "user:1 user:10 user:2 " ] \
    || fail "redis-cli --scan with its own cursor loop"
expect 2 DEL user:1 user:2
expect 0 EXISTS user:1
expect 4 DBSIZE
cli INFO | grep -q '^# Twain' || fail "INFO has no Twain section"
cli INFO keyspace | grep -q '^db0:keys=' || fail "INFO keyspace"
expect "ERR unknown command 'NOSUCH', with args beginning with: 'x' " NOSUCH x
log "redis-cli smoke passed"

bench="$(redis-benchmark -h 127.0.0.1 -p "$port" -q -t set,get -n 20000 -P 16 -c 10 2>&1 | tr '\r' '\n')"
printf '%s\n' "$bench" | grep -E '^(SET|GET): [0-9.]+ requests per second' \
    || fail "redis-benchmark: $bench"
[ "$(printf '%s\n' "$bench" | grep -cE '^(SET|GET): [0-9.]+ requests per second')" -eq 2 ] \
    || fail "redis-benchmark did not finish both tests: $bench"
expect PONG PING

kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" -eq 0 ] || fail "twain serve exited with status $status after SIGTERM: $(cat "$work/err.log")"
grep -q "database flushed and closed" "$work/out.log" || fail "no clean close in the log"
log "SIGTERM: exit status 0, database flushed and closed"
log "passed"

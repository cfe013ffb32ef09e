#!/usr/bin/env bash
# Redis semantics, checked against Redis itself: the same commands run on a real
# `redis-server` and on `twain serve` (the debug binary `cargo test` builds), each from an
# empty database, and the replies must be byte for byte the same (as `redis-cli` prints
# them, errors included). Where Redis lists keys in hash order (KEYS), both lists are
# sorted first. Installs Debian's redis-server and redis-tools if missing.
#
# The commands twain refuses on purpose (expiry, other data types) are not here: see
# docs/server.md, "Not supported".
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'redis-compat: %s\n' "$*"; }
fail() { printf 'redis-compat: FAILED: %s\n' "$*" >&2; exit 1; }

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    log "installing redis-server and redis-tools"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server redis-tools >/dev/null
fi
bin="${CARGO_TARGET_DIR:-target}/debug/twain"
[ -x "$bin" ] || cargo build --locked -q -p twain-cli

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

read -r redis_port twain_port < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
disown
"$bin" serve --db "$work/twain" --addr "127.0.0.1:$twain_port" --sync never \
    >"$work/twain.log" 2>&1 &
pids+=($!)
disown
for port in "$redis_port" "$twain_port"; do
    for _ in $(seq 1 100); do
        [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break
        sleep 0.05
    done
    [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] || fail "no server on port $port"
done
log "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on $redis_port, twain on $twain_port"

# Each case: lines of commands run in order on an empty database (one redis-cli per line,
# so an error reply does not end the case); `sort:` before a command sorts its reply.
cases=(
    # strings
    'SET k v|GET k|SET k w NX|SET k w XX|GET k|SET n 1 XX|GET n|SET k x GET|SET z y GET|GET z'
    'SET k v NX XX|SET k|SET|GET|GET k extra|SET k v PX|SET k v BADOPT'
    'SETNX a 1|SETNX a 2|GET a|GETSET a 3|GETSET b 4|GET b'
    'MSET a 1 b 2 c 3|MGET a b nosuch c|MSET a|MSET a 1 b|MGET'
    'APPEND s abc|APPEND s de|GET s|STRLEN s|STRLEN nosuch|APPEND s ""|STRLEN s'
    'INCR c|INCRBY c 10|DECR c|DECRBY c 5|INCRBY c -3|GET c|INCRBY c abc|INCRBY c 1.5'
    'SET big 9223372036854775807|INCR big|SET small -9223372036854775808|DECR small|DECRBY small 1'
    'SET t " 12"|INCR t|SET t 012|INCR t|SET t +1|INCR t|SET t 99999999999999999999|INCR t|SET t ""|INCR t'
    # keyspace
    'MSET a 1 b 2 c 3|DEL a nosuch a|EXISTS a b b c nosuch|DEL a b c|EXISTS a'
    'MSET a 1 b 2|TOUCH a b nosuch a|TOUCH nosuch'
    'SET a 1|TYPE a|TYPE nosuch|TYPE|TYPE a b'
    'MSET user:1 a user:2 b user:10 c item:1 d uzer:1 e|sort:KEYS user:*|sort:KEYS *|sort:KEYS u?er:1|sort:KEYS *:1|KEYS nothing*|sort:KEYS user:[12]|KEYS|KEYS a b'
    'RANDOMKEY|SET only 1|RANDOMKEY|RANDOMKEY extra'
    'MSET a 1 b 2 c 3|DBSIZE|DEL b|DBSIZE|FLUSHDB|DBSIZE|GET a|DBSIZE extra'
    'MSET a 1 b 2 c 3|SET a 2|DEL c|INFO keyspace'
    # connection and errors
    'PING|PING hello|ECHO hi|ECHO|SELECT 0|SELECT x'
    'NOSUCH|NOSUCH a b|nosuch x|GET a b c'
)

run() { # PORT COMMAND-LINE
    local port="$1" line="$2" sort=0
    if [[ "$line" == sort:* ]]; then sort=1; line="${line#sort:}"; fi
    local -a words
    eval "words=($line)"
    if [ "$sort" -eq 1 ]; then
        redis-cli -p "$port" "${words[@]}" 2>&1 | sort
    else
        redis-cli -p "$port" "${words[@]}" 2>&1
    fi
}

checked=0
for case in "${cases[@]}"; do
    for port in "$redis_port" "$twain_port"; do
        redis-cli -p "$port" FLUSHALL >/dev/null
    done
    IFS='|' read -r -a lines <<<"$case"
    for line in "${lines[@]}"; do
        want="$(run "$redis_port" "$line")"
        got="$(run "$twain_port" "$line")"
        if [ "$line" = "INFO keyspace" ]; then
            want="$(printf '%s\n' "$want" | tr -d '\r' | grep '^db0:')"
            got="$(printf '%s\n' "$got" | tr -d '\r' | grep '^db0:')"
        fi
        [ "$want" = "$got" ] || fail "$(printf '%s\n  redis: %q\n  twain: %q' "$line" "$want" "$got")"
        checked=$((checked + 1))
    done
done
log "passed: $checked commands in ${#cases[@]} cases replied as redis-server does"

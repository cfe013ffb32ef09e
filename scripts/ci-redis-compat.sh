#!/usr/bin/env bash
# Redis semantics, checked against Redis itself: the same commands run on a real
# `redis-server` and on `twain serve` (the debug binary `cargo test` builds), each from an
# empty database, and the replies must be byte for byte the same (as `redis-cli` prints
# them, errors included). Where Redis lists keys in hash order (KEYS), both lists are
# sorted first. Installs Debian's redis-server and redis-tools if missing.
#
# Expiry is compared where the replies are deterministic: fixed far-future EXPIREAT and
# PEXPIREAT times read back by EXPIRETIME/PEXPIRETIME, relative times read back by TTL
# (rounded to seconds: `SET k v EX 100` then `TTL k` is 100 on both), errors, deletion by
# past times. TTL of an absolute time is not compared: it rounds against each server's own
# clock, read moments apart, so a time near a half second differs by one (seen in CI). INFO keyspace is compared without avg_ttl (Redis estimates it in the
# background; twain prints 0).
#
# The commands twain refuses on purpose (other data types) are not here: see
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

# Waits up to 30 s for PORT to answer PING while PID lives. Returns 1 if PID died (its log
# says why: a port taken between choosing it and binding it is retried), 2 on a timeout.
wait_pong() { # PORT PID
    local port="$1" pid="$2"
    for _ in $(seq 1 300); do
        [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 2
}

# redis-server: a free port chosen here (its --port 0 means no TCP at all), tried up to
# three times in case another process takes the port first.
redis_port=""
for attempt in 1 2 3; do
    port="$(python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$work" >"$work/redis.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    disown
    status=0
    wait_pong "$port" "$pid" || status=$?
    if [ "$status" -eq 0 ]; then redis_port="$port"; break; fi
    log "redis-server on port $port did not answer PING (attempt $attempt, $([ "$status" -eq 1 ] && echo exited || echo timed out)); its log:"  >&2
    sed 's/^/    /' "$work/redis.log" >&2
    kill -KILL "$pid" 2>/dev/null || true
done
[ -n "$redis_port" ] || fail "redis-server did not start"

# twain serve: port 0, and the port it prints.
"$bin" serve --db "$work/twain" --addr "127.0.0.1:0" --sync never \
    >"$work/twain.log" 2>"$work/twain.err" &
pid=$!
pids+=("$pid")
disown
twain_port=""
for _ in $(seq 1 300); do
    twain_port="$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$work/twain.log")"
    [ -n "$twain_port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$twain_port" ] || ! wait_pong "$twain_port" "$pid"; then
    sed 's/^/    /' "$work/twain.log" "$work/twain.err" >&2
    fail "twain serve did not answer PING${twain_port:+ on port $twain_port}"
fi
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
    # expiry
    'SET k v|TTL k|PTTL k|EXPIRETIME k|PEXPIRETIME k|TTL nosuch|PTTL nosuch|EXPIRETIME nosuch|PEXPIRETIME nosuch|PERSIST k|PERSIST nosuch'
    'SET k v|EXPIRE k 100|TTL k|EXPIRE nosuch 100|PEXPIRE k 100000|TTL k|PERSIST k|TTL k|PERSIST k|GET k'
    'SET k v|EXPIREAT k 4102444800|EXPIRETIME k|PEXPIRETIME k|PEXPIREAT k 4102444800123|PEXPIRETIME k|EXPIRETIME k|PEXPIREAT k 4102444800499|EXPIRETIME k|PEXPIREAT k 4102444800500|EXPIRETIME k|EXPIREAT nosuch 4102444800'
    'SET k v|EXPIREAT k 4102444800 XX|EXPIREAT k 4102444800 GT|EXPIREAT k 4102444800 LT|EXPIRETIME k|EXPIREAT k 4102444900 NX|EXPIREAT k 4102444900 LT|EXPIREAT k 4102444700 GT|EXPIREAT k 4102444900 GT|EXPIRETIME k|EXPIREAT k 4102444800 XX LT|EXPIRETIME k|PEXPIREAT k 4102444800000 LT|PEXPIREAT k 4102444800000 GT|EXPIRE k 100 nx nx|EXPIRETIME k|PERSIST k|EXPIRE k 100 NX|TTL k'
    'SET k v|EXPIRE k 1 NX XX|EXPIRE k 1 NX GT|EXPIRE k 1 NX LT|EXPIRE k 1 GT LT|EXPIRE k 1 FOO|EXPIRE k x FOO|EXPIRE k x|EXPIRE k 1.5|EXPIRE k ""|TTL k'
    'SET k v|EXPIRE k 9223372036854775807|EXPIRE k 9223372036854776|EXPIRE k 9223372036854775|PEXPIRE k 9223372036854775807|EXPIREAT k -9223372036854775808|EXPIREAT k 9223372036854776|TTL k|PEXPIREAT k 9223372036854775807|PEXPIRETIME k|EXPIRETIME k|GET k|PEXPIRE k -9223372036854775808|GET k'
    'MSET a 1 b 2 c 3 d 4 e 5|EXPIRE a 0|PEXPIRE b -1|EXPIREAT c 1|PEXPIREAT d 1000|EXISTS a b c d e|DBSIZE|EXPIRE a 0|MGET a b c d e'
    'SET k v EX 100|TTL k|SET k w KEEPTTL|TTL k|GET k|SET k x|TTL k|SET k y PX 100000|TTL k|SET k z EXAT 4102444800|EXPIRETIME k|SET k z PXAT 4102444800123|PEXPIRETIME k|SET k v EX 1 EX 100|TTL k|SET k v KEEPTTL KEEPTTL|TTL k'
    'SET k v NX EX 100|TTL k|SET k w NX EX 5|TTL k|SET k w XX KEEPTTL|TTL k|SET k w2 GET EX 50|TTL k|SET n v XX EX 5|TTL n|EXISTS n|SET k v3 NX GET EXAT 4102444800|EXPIRETIME k|SET k v4 XX GET KEEPTTL|TTL k|GET k'
    'SET k v EX 0|SET k v PX -1|SET k v EXAT 0|SET k v PXAT -5|SET k v EX 9223372036854776|SET k v EX 9223372036854775|SET k v PX 9223372036854775807|SET k v EX x|SET k v EX 10 PX 10|SET k v KEEPTTL EX 10|SET k v PX 10 KEEPTTL|SET k v EXAT 10 PXAT 10|SET k v EX|SET k v PERSIST|GET k'
    'SET k v PXAT 1|GET k|EXISTS k|TTL k|SET k v EXAT 9223372036854775|PEXPIRETIME k'
    'SETEX k 100 v|TTL k|GET k|SETEX k 0 v|SETEX k -1 v|SETEX k x v|SETEX k 9223372036854776 v|PSETEX p 100000 v|TTL p|PSETEX p 0 v|PSETEX p -5 v|PSETEX p 9223372036854775807 v|SETEX k 10|PSETEX p|GET p|TTL k'
    'GETEX nosuch|GETEX nosuch EX -1|GETEX nosuch EX x|GETEX nosuch PERSIST|SET k v|GETEX k|TTL k|GETEX k EX 100|TTL k|GETEX k|TTL k|GETEX k PERSIST|TTL k|GETEX k PERSIST|GETEX k PX 100000|TTL k|GETEX k EXAT 4102444800|EXPIRETIME k|GETEX k PXAT 4102444800123|PEXPIRETIME k|GETEX k EX 0|GETEX k PX -1|GETEX k EX x|GETEX k EX 9223372036854776|PEXPIRETIME k'
    'SET k v|GETEX k KEEPTTL|GETEX k NX|GETEX k GET|GETEX k EX 1 PERSIST|GETEX k PERSIST EX 1|GETEX k EX|GETEX k EX 1 PX 1|GETEX k EX 100 EX 200|TTL k|GETEX k EXAT 1|EXISTS k|GETEX k|GETEX'
    'SET k 10 EX 100|INCR k|TTL k|INCRBY k 5|TTL k|DECR k|TTL k|DECRBY k 5|TTL k|APPEND k 0|TTL k|GET k|GETSET k 1|TTL k'
    'SET m 1 EX 100|MSET m 2 x 3|TTL m|SET s 1 EX 100|SETNX s 2|TTL s|GET s|SET g 1 EX 100|SET g 2 GET|TTL g'
    'MSET a 1 b 2 c 3|EXPIRE a 1000|SET d 4 EX 1000|PEXPIREAT b 4102444800000|PERSIST b|INFO keyspace'
    'TTL|TTL a b|PTTL|EXPIRE k|PEXPIRE|EXPIREAT k|PEXPIREAT k|PERSIST|PERSIST a b|EXPIRETIME|PEXPIRETIME a b|SETEX k 1|PSETEX k|GETEX'
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
            want="$(printf '%s\n' "$want" | tr -d '\r' | grep '^db0:' | sed 's/,avg_ttl=[0-9]*$//')"
            got="$(printf '%s\n' "$got" | tr -d '\r' | grep '^db0:' | sed 's/,avg_ttl=[0-9]*$//')"
        fi
        [ "$want" = "$got" ] || fail "$(printf '%s\n  redis: %q\n  twain: %q' "$line" "$want" "$got")"
        checked=$((checked + 1))
    done
done
log "passed: $checked commands in ${#cases[@]} cases replied as redis-server does"

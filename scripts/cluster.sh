#!/usr/bin/env bash
# A sharded twain deployment on loopback: N `twain serve` nodes behind twemproxy
# (nutcracker), as docs/cluster.md describes.
#
#   scripts/cluster.sh start DIR [N] [SYNC]   N nodes (default 3), --sync SYNC (default
#                                             batch); prints the proxy's port
#   scripts/cluster.sh stop DIR               SIGTERM to every node and the proxy
#   scripts/cluster.sh kill-node DIR I        SIGKILL node I (1-based): a crash
#   scripts/cluster.sh start-node DIR I [SYNC]  restarts node I on its port and directory
#   scripts/cluster.sh env DIR                the ports, as shell assignments
#
# DIR holds each node's database (DIR/nodeI/db), its log and pid, the proxy's
# configuration (DIR/nutcracker.yml), its log and pid, and DIR/cluster.env (PROXY_PORT,
# NODE_PORTS). Ports are picked free at `start` and kept, so a restarted node comes back
# where the proxy expects it.
#
# The `twain` binary: $TWAIN_BIN, else target/release/twain, else target/debug/twain
# (built with `cargo build -p twain-cli` if neither exists). Installs Debian's nutcracker
# with apt-get if it is missing, as scripts/ci-server.sh does for redis-tools.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'cluster: %s\n' "$*" >&2; }
die() { printf 'cluster: %s\n' "$*" >&2; exit 1; }

twain_bin() {
    if [ -n "${TWAIN_BIN:-}" ]; then echo "$TWAIN_BIN"; return; fi
    local target="${CARGO_TARGET_DIR:-target}"
    for b in "$target/release/twain" "$target/debug/twain"; do
        if [ -x "$b" ]; then echo "$b"; return; fi
    done
    cargo build --locked -q -p twain-cli >&2
    echo "$target/debug/twain"
}

ensure_nutcracker() {
    command -v nutcracker >/dev/null && return
    log "installing nutcracker"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nutcracker >/dev/null
    command -v nutcracker >/dev/null || die "nutcracker is not installed and apt-get failed"
}

# N free loopback TCP ports, one per line (bound at once, so they differ).
free_ports() {
    python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
EOF
}

# Waits until PORT accepts connections and answers PING; fails if PID dies first.
wait_ready() { # PORT PID WHAT
    local port="$1" pid="$2" what="$3"
    for _ in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || die "$what exited at start"
        if python3 - "$port" <<'EOF' 2>/dev/null; then return; fi
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
s.sendall(b"*1\r\n$4\r\nPING\r\n")
assert s.recv(64).startswith(b"+PONG")
EOF
        sleep 0.05
    done
    die "$what did not answer PING on port $port"
}

load_env() { # DIR
    [ -f "$1/cluster.env" ] || die "no cluster in $1 (cluster.env missing)"
    # shellcheck disable=SC1091
    . "$1/cluster.env"
}

start_node() { # DIR I SYNC
    local dir="$1" i="$2" sync="$3"
    load_env "$dir"
    local ports=($NODE_PORTS)
    local port="${ports[$((i - 1))]}"
    [ -n "$port" ] || die "no node $i"
    mkdir -p "$dir/node$i"
    local bin
    bin="$(twain_bin)"
    # setsid: a node outlives the shell that started it, and a SIGINT to that shell.
    setsid "$bin" serve --db "$dir/node$i/db" --addr "127.0.0.1:$port" --sync "$sync" \
        >>"$dir/node$i/out.log" 2>>"$dir/node$i/err.log" </dev/null &
    local pid=$!
    echo "$pid" >"$dir/node$i/pid"
    wait_ready "$port" "$pid" "node $i"
    log "node $i: pid $pid, port $port, --sync $sync"
}

start() { # DIR N SYNC
    local dir="$1" n="$2" sync="$3"
    [ "$n" -ge 1 ] || die "at least one node"
    [ ! -e "$dir/cluster.env" ] || die "$dir already holds a cluster (stop it, remove the directory)"
    ensure_nutcracker
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    local ports
    mapfile -t ports < <(free_ports $((n + 1)))
    local proxy_port="${ports[0]}"
    printf 'PROXY_PORT=%s\nNODE_PORTS="%s"\n' "$proxy_port" "${ports[*]:1}" >"$dir/cluster.env"
    for i in $(seq 1 "$n"); do
        start_node "$dir" "$i" "$sync"
    done
    {
        cat <<EOF
# twemproxy in front of $n twain nodes (see docs/cluster.md for every setting).
twain:
  listen: 127.0.0.1:$proxy_port
  redis: true
  # murmur spread 20,000 keys 6,331 / 6,950 / 6,719 over 3 nodes; fnv1a_64, 4,920 /
  # 8,499 / 6,581 (docs/cluster.md).
  hash: murmur
  hash_tag: "{}"
  distribution: ketama
  # A down node's keys stay with it: requests for them fail until it is back, rather
  # than going to another node that does not hold them.
  auto_eject_hosts: false
  timeout: 2000
  server_retry_timeout: 1000
  server_connections: 1
  preconnect: true
  servers:
EOF
        local i=1
        for port in "${ports[@]:1}"; do
            # host:port:weight name -- the name, not the address, places keys on the
            # ring, so a node can move to another address without moving its keys.
            echo "    - 127.0.0.1:$port:1 node$i"
            i=$((i + 1))
        done
    } >"$dir/nutcracker.yml"
    nutcracker --test-conf --conf-file="$dir/nutcracker.yml" >/dev/null 2>&1 \
        || die "nutcracker refuses $dir/nutcracker.yml"
    # nutcracker's own stats port (22222 by default) would collide between clusters.
    local stats_port
    stats_port="$(free_ports 1)"
    setsid nutcracker --conf-file="$dir/nutcracker.yml" --stats-port="$stats_port" \
        --stats-addr=127.0.0.1 --output="$dir/nutcracker.log" </dev/null >/dev/null 2>&1 &
    local pid=$!
    echo "$pid" >"$dir/nutcracker.pid"
    wait_ready "$proxy_port" "$pid" "nutcracker"
    log "nutcracker: pid $pid, port $proxy_port, $n nodes"
    echo "$proxy_port"
}

signal_pidfile() { # FILE SIGNAL
    [ -f "$1" ] || return 0
    local pid
    pid="$(cat "$1")"
    kill "-$2" "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$1"; return 0; }
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$1"
}

stop() { # DIR
    local dir="$1"
    signal_pidfile "$dir/nutcracker.pid" TERM
    for pidfile in "$dir"/node*/pid; do
        [ -e "$pidfile" ] && signal_pidfile "$pidfile" TERM
    done
    log "stopped"
}

cmd="${1:-}"
case "$cmd" in
    start) [ $# -ge 2 ] || die "usage: $0 start DIR [N] [SYNC]"
        start "$2" "${3:-3}" "${4:-batch}" ;;
    stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"
        stop "$2" ;;
    kill-node) [ $# -eq 3 ] || die "usage: $0 kill-node DIR I"
        signal_pidfile "$2/node$3/pid" KILL
        log "node $3 killed" ;;
    start-node) [ $# -ge 3 ] || die "usage: $0 start-node DIR I [SYNC]"
        start_node "$2" "$3" "${4:-batch}" ;;
    env) [ $# -eq 2 ] || die "usage: $0 env DIR"
        cat "$2/cluster.env" ;;
    *) die "usage: $0 start|stop|kill-node|start-node|env DIR ..." ;;
esac

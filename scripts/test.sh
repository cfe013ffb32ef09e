#!/usr/bin/env bash
# The test command of the README and of CI (.ci/run): the Rust workspace; `twain serve`
# through the real redis-cli and redis-benchmark (installs redis-tools if missing), its
# replies against a real redis-server's (installs redis-server), three nodes behind
# twemproxy (installs nutcracker); a short AFL++ smoke run of every fuzz target on its
# seeds (installs cargo-afl if missing); the Python bindings in a fresh virtualenv.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
scripts/ci-examples.sh
scripts/ci-server.sh
scripts/ci-redis-compat.sh
scripts/ci-cluster.sh
command -v cargo-afl >/dev/null || cargo install cargo-afl --locked
# The fuzz workspace builds with AFL's instrumentation: its own target directory. About
# 100,000 executions per target from a fixed seed: the same run every time (longer,
# exploring runs: fuzz/smoke.sh SECS).
TWAIN_FUZZ_EXECS=100000 CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/fuzz" fuzz/smoke.sh
scripts/ci-python.sh

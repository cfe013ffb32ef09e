#!/usr/bin/env bash
# The test command of the README and of CI (.ci/run): the Rust workspace, then the Python
# bindings in a fresh virtualenv, then the Redis-protocol server through real Redis tools.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
scripts/ci-python.sh

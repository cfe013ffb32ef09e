#!/usr/bin/env bash
# Runs every example of the engine and of the server (crates/*/examples/*.rs); each checks
# what it shows with assertions, so a failing example fails CI. Run after `cargo test`,
# which has built them: `--profile test` runs those builds rather than compiling every
# example again in the dev profile (80 s of CI on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
for crate in twain twain-server; do
    for file in crates/"$crate"/examples/*.rs; do
        name="$(basename "$file" .rs)"
        cargo run --locked -q --profile test -p "$crate" --example "$name" >/tmp/twain-example.$$ 2>&1 || {
            cat /tmp/twain-example.$$ >&2
            rm -f /tmp/twain-example.$$
            echo "ci-examples: FAILED: $crate example $name" >&2
            exit 1
        }
        sed "s/^/ci-examples: /" /tmp/twain-example.$$
    done
done
rm -f /tmp/twain-example.$$

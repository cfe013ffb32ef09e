#!/usr/bin/env bash
# CI for the Python bindings: installs the `twain` package the way a user does
# (`pip install ./bindings/python`: pip fetches maturin from PyPI as the build backend and
# maturin builds the extension with cargo) into a fresh virtualenv, then runs its tests.
#
# Needs python3 (>= 3.8, with venv) and a Rust toolchain. cargo honours CARGO_TARGET_DIR,
# and pip passes the environment through to maturin: set it to reuse a build directory
# between runs. Unset, the build goes to a temporary directory removed at exit, so the
# checkout stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$work/target}"
# Build with the committed bindings/python/Cargo.lock, failing if it is out of date.
export MATURIN_PEP517_ARGS="--locked"

start=$SECONDS
python3 -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check ./bindings/python pytest
echo "ci-python: venv and pip install took $((SECONDS - start)) s"

# From the tests' folder the installed package is imported (the source folder has no
# compiled module); no cache folder is written into the checkout.
"$py" -m pytest -p no:cacheprovider -q bindings/python/tests
echo "ci-python: total $((SECONDS - start)) s"

#!/usr/bin/env bash
# CI for the Python bindings: builds the `twaindb` wheel with `maturin build` (maturin from
# PyPI, in a virtualenv of its own), installs that wheel -- not the source folder -- into a
# fresh virtualenv, as a user installs a downloaded wheel, and runs the tests there.
#
# Needs python3 (>= 3.8, with venv) and a Rust toolchain. The one cargo build of the run
# goes to CARGO_TARGET_DIR: set it to reuse a build directory between runs. Unset, the
# build goes to a temporary directory removed at exit, so the checkout stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$work/target}"
pip_install() {
    "$1" -m pip install --quiet --disable-pip-version-check "${@:2}"
}

start=$SECONDS
python3 -m venv "$work/build"
# The same maturin as the build backend bindings/python/pyproject.toml names.
pip_install "$work/build/bin/python" "maturin>=1.7,<2"
# --locked: with the committed bindings/python/Cargo.lock, failing if it is out of date.
"$work/build/bin/maturin" build --release --locked --quiet \
    --manifest-path bindings/python/Cargo.toml \
    --interpreter "$(command -v python3)" --out "$work/wheels"
wheels=("$work"/wheels/*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "ci-python: expected one wheel, found: ${wheels[*]}" >&2
    exit 1
fi
echo "ci-python: built ${wheels[0]##*/} in $((SECONDS - start)) s"

python3 -m venv "$work/venv"
py="$work/venv/bin/python"
pip_install "$py" "${wheels[0]}" pytest
# The tests must import the installed wheel, never the source folder.
"$py" -c 'import sys, twaindb; assert twaindb.__file__.startswith(sys.prefix), twaindb.__file__'
echo "ci-python: wheel installed in a fresh venv at $((SECONDS - start)) s"

# From the tests' folder the installed package is imported (the source folder has no
# compiled module); no cache folder is written into the checkout.
"$py" -m pytest -p no:cacheprovider -q bindings/python/tests
echo "ci-python: total $((SECONDS - start)) s"

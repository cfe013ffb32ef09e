#!/bin/sh
# The medians of run.sh's runs in v1/ or v2/ (default v2), by hash-gc-goal's summary.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../hash-gc-goal/summary.py" "$here/${1:-v2}" base,young

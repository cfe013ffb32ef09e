#!/bin/sh
# The medians of run.sh's runs, by the live-pass experiment's summary.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../live-pass/summary.py" mem1k "$here" pool,inline

#!/usr/bin/env bash
# Builds the fuzz targets with `cargo afl` and runs each for SECS seconds (default 10) on
# its seed corpus. Fails if any target found a crash or hang. Usage (from anywhere):
#   fuzz/smoke.sh [SECS] [TARGET...]
# With TWAIN_FUZZ_EXECS=N each target instead runs about N executions from a fixed random
# seed, so that the run is the same every time (what CI does).
# Needs `cargo install cargo-afl` (which builds AFL++ on first use). Output goes to
# $TWAIN_FUZZ_OUT (default: a temporary directory); crashes are listed at the end.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-10}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(vlog_batch vlog_file table table_blocks manifest_edit drops header_frame svtable compaction_job)
fi
if ! command -v cargo-afl >/dev/null; then
  echo "fuzz smoke: cargo-afl is not installed (cargo install cargo-afl); skipped"
  exit 0
fi
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
export CARGO_TARGET_DIR="$target_dir"
cargo afl build --release --quiet
out="${TWAIN_FUZZ_OUT:-$(mktemp -d)}"
mkdir -p "$out"
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
found=0
for t in "${targets[@]}"; do
  rm -rf "$out/$t"
  if [ -n "${TWAIN_FUZZ_EXECS:-}" ]; then
    limit=(-E "$TWAIN_FUZZ_EXECS" -s 1)
  else
    limit=(-V "$secs")
  fi
  cargo afl fuzz "${limit[@]}" -i "seeds/$t" -o "$out/$t" "$target_dir/release/$t" >"$out/$t.log" 2>&1 || {
    echo "fuzz smoke: afl-fuzz failed on $t, see $out/$t.log"
    tail -5 "$out/$t.log"
    exit 1
  }
  stats="$out/$t/default/fuzzer_stats"
  execs=$(awk -F: '/^execs_done/ {gsub(/ /, "", $2); print $2}' "$stats")
  paths=$(awk -F: '/^corpus_count/ {gsub(/ /, "", $2); print $2}' "$stats")
  crashes=$(find "$out/$t/default/crashes" -type f ! -name README.txt | wc -l)
  hangs=$(find "$out/$t/default/hangs" -type f | wc -l)
  echo "fuzz $t: ${limit[*]}, execs $execs, corpus $paths, crashes $crashes, hangs $hangs"
  if [ "$crashes" -gt 0 ] || [ "$hangs" -gt 0 ]; then
    found=1
    find "$out/$t/default/crashes" "$out/$t/default/hangs" -type f ! -name README.txt
  fi
done
exit "$found"

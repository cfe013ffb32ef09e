#!/bin/bash
# How much glibc's fastbin consolidation costs reads: each allocation of 1 KiB or more
# consolidates the fastbins first (malloc_consolidate, 4.6% of a 100-pair scan's CPU
# samples in a perf profile), and value reads allocate one per value. base: the default
# allocator settings; nofast: GLIBC_TUNABLES=glibc.malloc.mxfast=0 (no fastbins, so nothing
# to consolidate). twain alone (build 487f1d5, /work/bin/twain-old), 1 M x 1 KiB freshly
# loaded (no updates, no GC), 20,000 100-pair scans, 200,000 gets; three runs each,
# alternating. Then: ./summary.py
set -e
here=$(cd "$(dirname "$0")" && pwd)
for r in 1 2 3; do
  for v in base nofast; do
    rm -rf /work/sweepdb/db
    if [ "$v" = nofast ]; then export GLIBC_TUNABLES=glibc.malloc.mxfast=0; else unset GLIBC_TUNABLES; fi
    /work/bin/twain-old bench --workloads fillrandom,scan100,readrandom --num 1000000 \
      --value-size 1024 --scans 20000 --reads 200000 --db /work/sweepdb/db --quiet --json \
      > "$here/$v.$r.jsonl" 2>/dev/null
  done
done

#!/usr/bin/env python3
# Usage: ./summary.py STEP (4k or 1k): medians (spread) of ops/s, p99.9, space at the
# phase's end, GC runs and bytes read from the disk per phase, old (353bb8a), new and nogc (old with GC held to 1 MiB/s).
import json, glob, sys, statistics as st
step = sys.argv[1] if len(sys.argv) > 1 else "4k"
here = sys.argv[2] if len(sys.argv) > 2 else "."
rows = {}
for f in sorted(glob.glob(f"{here}/{step}.r*.jsonl")):
    _, run, ver = f.split("/")[-1].split(".")[:3]
    for line in open(f):
        j = json.loads(line)
        rows.setdefault((j["phase"], ver), []).append(j)
phases = ["fillrandom", "updatezipf", "scan10", "scan100", "scan1000", "scankeys100", "readrandom"]
for ph in phases:
    med = {}
    for v in ("old", "new", "nogc"):
        js = rows.get((ph, v), [])
        if not js:
            continue
        ops = [j["ops_per_sec"] for j in js]
        med[v] = st.median(ops)
        print(f"{ph:12} {v:4} {st.median(ops):8.0f} ({min(ops):.0f}-{max(ops):.0f})"
              f" p99.9 {st.median(j['p999_us'] for j in js) / 1000:6.2f} ms"
              f" max {st.median(j['max_us'] for j in js) / 1000:6.1f} ms"
              f" space {st.median(j['space_amp'] for j in js):.2f}"
              f" gc runs {[j.get('gc_runs') for j in js]}"
              f" disk read GB {[round(j['read_bytes'] / 1e9, 1) for j in js]}")
    if "new" in med and "old" in med:
        print(f"{'':12} new/old {med['new'] / med['old']:.2f}")
    if "nogc" in med and "old" in med:
        print(f"{'':12} nogc/old {med['nogc'] / med['old']:.2f}")

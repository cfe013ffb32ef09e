#!/usr/bin/env python3
"""Medians of three: old twain, new twain and RocksDB per phase (ops/s, p99.9, max, and
the counters that explain scans: SVTable searches, GC runs). Usage: summary.py OUT_DIR"""
import json, statistics, sys, glob, os

out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(out, "*-r*.jsonl"))):
    build = os.path.basename(path).split("-")[0]
    for line in open(path):
        d = json.loads(line)
        name = "twain " + build if d["engine"] == "twain" else d["engine"]
        key = (name, d["index"], d["phase"])
        rows.setdefault(key, []).append(d)

def med(ds, f):
    vals = [f(d) for d in ds if f(d) is not None]
    return statistics.median(vals) if vals else None

print("| engine | phase | ops/s (runs) | p99.9 µs | max ms | SVTable searches | GC runs |")
print("|---|---|---|---|---|---|---|")
for (name, idx, phase), ds in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    ops = " / ".join(f"{d['ops_per_sec'] / 1000:.1f}k" for d in ds)
    print(f"| {name} | {phase} | {med(ds, lambda d: d['ops_per_sec']) / 1000:.1f}k ({ops}) "
          f"| {med(ds, lambda d: d['p999_us']):.0f} | {med(ds, lambda d: d['max_us']) / 1000:.1f} "
          f"| {med(ds, lambda d: d.get('svtable_searches')) or '-'} | {med(ds, lambda d: d.get('gc_runs')) or '-'} |")

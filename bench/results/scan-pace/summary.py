#!/usr/bin/env python3
"""Medians of the three runs per engine and phase: ops/s, p99.9, CPU per op, space."""
import json, glob, statistics, collections
rows = collections.defaultdict(list)
for f in sorted(glob.glob("r*.*.jsonl")):
    eng = f.split(".")[1]
    for line in open(f):
        d = json.loads(line)
        rows[(d["phase"], eng)].append(d)
phases = ["fillrandom", "updatezipf", "scan10", "scan100", "scan1000", "readrandom"]
print("| phase | engine | ops/s (runs) | p99.9 us | CPU us/op | space | GC runs | compaction read MB |")
print("|---|---|---|---|---|---|---|---|")
for p in phases:
    for e in ["base", "new", "rocks"]:
        ds = rows.get((p, e), [])
        if not ds:
            continue
        med = lambda k: statistics.median([(d.get(k) or 0) for d in ds])
        runs = "/".join(f"{d['ops_per_sec']:.0f}" for d in ds)
        print(f"| {p} | {e} | {med('ops_per_sec'):.0f} ({runs}) | {med('p999_us'):.0f} | {med('cpu_us_per_op'):.1f} | {med('space_amp'):.2f} | {med('gc_runs'):.0f} | {med('compaction_read_bytes')/1e6:.0f} |")

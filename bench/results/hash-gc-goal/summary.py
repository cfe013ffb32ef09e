#!/usr/bin/env python3
"""Medians of the rounds of run.sh per distribution, phase (P1..P3 after the load) and
variant: ops/s, p99.9 and max latency, GC and engine MB written, writers' stall time, space
at the phase's end and its highest sample, GC thread CPU seconds.

usage: summary.py [DIR] [A,B]   (DIR this directory, variants base,goal08)"""
import glob, json, os, statistics, sys
args = sys.argv[1:]
here = args[0] if len(args) > 0 else os.path.dirname(os.path.abspath(__file__))
variants = (args[1] if len(args) > 1 else "base,goal08").split(",")
rows = {}
for path in sorted(glob.glob(os.path.join(here, "*.r*.*.jsonl"))):
    dist, _r, variant, _ = os.path.basename(path).split(".")
    for d in map(json.loads, open(path)):
        name = "load" if d["index"] == 0 else f"P{d['index']}"
        rows.setdefault((dist, name, variant), []).append(d)
def med(xs):
    return statistics.median(xs)
cols = [
    ("ops/s", lambda d: d["ops_per_sec"], "{:,.0f}"),
    ("p99.9 µs", lambda d: d["p999_us"], "{:,.0f}"),
    ("max ms", lambda d: d["max_us"] / 1000, "{:,.0f}"),
    ("GC MB written", lambda d: (d["gc_write_bytes"] or 0) / 1e6, "{:,.0f}"),
    ("engine MB written", lambda d: (d["engine_bytes_written"] or 0) / 1e6, "{:,.0f}"),
    ("stalled s", lambda d: (d["stall_micros"] or 0) / 1e6, "{:.1f}"),
    ("space end", lambda d: d["space_amp"], "{:.2f}"),
    ("space max", lambda d: d.get("space_amp_max") or 0, "{:.2f}"),
    ("GC CPU s", lambda d: d.get("cpu_secs_by_thread", {}).get("twain-gc", 0), "{:.1f}"),
]
for dist in ("uniform", "zipf"):
    print(f"\n{dist}, medians of the rounds (n = rounds)")
    print("| phase | variant | " + " | ".join(c[0] for c in cols) + " | n |")
    print("|---|---|" + "---|" * len(cols) + "---|")
    for name in ("load", "P1", "P2", "P3"):
        for v in variants:
            ds = rows.get((dist, name, v), [])
            if not ds:
                continue
            cells = [f.format(med([g(d) for d in ds])) for _, g, f in cols]
            print(f"| {name} | {v} | " + " | ".join(cells) + f" | {len(ds)} |")

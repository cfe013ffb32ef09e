#!/usr/bin/env python3
"""Medians of three per phase and variant: ops/s, p99.9, CPU per operation, GC MB written,
space at the phase's end, its highest sample and its time-weighted mean, GC thread CPU."""
import glob, json, os, statistics
here = os.path.dirname(os.path.abspath(__file__))
rows = {}
for path in sorted(glob.glob(os.path.join(here, "m.r*.*.jsonl"))):
    variant = os.path.basename(path).split(".")[2]
    for d in map(json.loads, open(path)):
        rows.setdefault((d["phase"], variant), []).append(d)
cols = [
    ("ops/s", lambda d: d["ops_per_sec"], "{:,.0f}"),
    ("p99.9 µs", lambda d: d["p999_us"], "{:,.0f}"),
    ("CPU µs/op", lambda d: d["cpu_us_per_op"], "{:.1f}"),
    ("GC MB written", lambda d: (d["gc_write_bytes"] or 0) / 1e6, "{:,.0f}"),
    ("space end", lambda d: d["space_amp"], "{:.2f}"),
    ("space max", lambda d: d.get("space_amp_max") or 0, "{:.2f}"),
    ("space mean", lambda d: d.get("space_amp_mean") or 0, "{:.2f}"),
    ("GC CPU s", lambda d: d.get("cpu_secs_by_thread", {}).get("twain-gc", 0), "{:.1f}"),
]
print("| phase | variant | " + " | ".join(c[0] for c in cols) + " | n |")
print("|---|---|" + "---|" * len(cols) + "---|")
for phase in ("ycsb-load", "ycsb-a"):
    for v in ("default", "t115"):
        ds = rows.get((phase, v), [])
        if ds:
            cells = []
            for _, g, f in cols:
                xs = [g(d) for d in ds]
                cells.append(f.format(statistics.median(xs)))
            print(f"| {phase} | {v} | " + " | ".join(cells) + f" | {len(ds)} |")

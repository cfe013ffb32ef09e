#!/usr/bin/env python3
"""Medians of three per phase: ops/s and CPU per operation, base against nofast."""
import glob, json, os, statistics
here = os.path.dirname(os.path.abspath(__file__))
res = {}
for f in sorted(glob.glob(os.path.join(here, "*.jsonl"))):
    v = os.path.basename(f).split(".")[0]
    for line in open(f):
        d = json.loads(line)
        res.setdefault((d["phase"], v), []).append(d)
print("| phase | base ops/s | nofast ops/s | nofast/base | CPU µs/op base / nofast |")
print("|---|---|---|---|---|")
for phase in ("fillrandom", "scan100", "readrandom"):
    b, n = res[(phase, "base")], res[(phase, "nofast")]
    mb = statistics.median(d["ops_per_sec"] for d in b)
    mn = statistics.median(d["ops_per_sec"] for d in n)
    cb = statistics.median(d["cpu_us_per_op"] for d in b)
    cn = statistics.median(d["cpu_us_per_op"] for d in n)
    spread = lambda ds: f"{min(d['ops_per_sec'] for d in ds):,.0f}–{max(d['ops_per_sec'] for d in ds):,.0f}"
    print(f"| {phase} | {mb:,.0f} ({spread(b)}) | {mn:,.0f} ({spread(n)}) | {mn / mb:.2f} | {cb:.1f} / {cn:.1f} |")

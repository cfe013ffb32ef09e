#!/usr/bin/env python3
"""Medians (and spreads) per phase of the runs of run.sh: ops/s, p99.9, CPU per operation
(all threads), space at the phase's end; then each variant's CPU seconds by thread over the
whole run."""
import glob, json, os, statistics, sys
here = os.path.dirname(os.path.abspath(__file__))
step = sys.argv[1] if len(sys.argv) > 1 else "mem1k"
runs = {}
threads = {}
for path in sorted(glob.glob(os.path.join(here, f"{step}.r*.*.jsonl"))):
    variant = path.split(".")[-2]
    for line in open(path):
        d = json.loads(line)
        runs.setdefault((d["phase"], variant), []).append(d)
    tpath = path[: -len(".jsonl")] + ".threads.json"
    if os.path.exists(tpath):
        t = json.load(open(tpath))
        threads.setdefault(variant, []).append(t)
phases = []
for (phase, _v) in runs:
    if phase not in phases:
        phases.append(phase)
def med(xs):
    return statistics.median(xs) if xs else float("nan")
def show(key, fmt, scale=1.0):
    print(f"\n{key}")
    print("| phase | pool | inline | inline/pool | runs |")
    print("|---|---|---|---|---|")
    for p in phases:
        o = [r[key] * scale for r in runs.get((p, "pool"), []) if r.get(key) is not None]
        n = [r[key] * scale for r in runs.get((p, "inline"), []) if r.get(key) is not None]
        if not o or not n:
            continue
        ratio = med(n) / med(o) if med(o) else float("nan")
        print(f"| {p} | {fmt(med(o))} ({fmt(min(o))}–{fmt(max(o))}) | {fmt(med(n))} ({fmt(min(n))}–{fmt(max(n))}) | {ratio:.2f} | {len(o)}+{len(n)} |")
show("ops_per_sec", lambda x: f"{x:,.0f}")
show("p999_us", lambda x: f"{x:,.0f}")
show("cpu_us_per_op", lambda x: f"{x:,.1f}")
show("space_amp", lambda x: f"{x:.2f}")
print("\nCPU seconds by thread over the whole run (median of the runs)")
names = sorted({n for ts in threads.values() for t in ts for n in t})
print("| thread | pool | inline |")
print("|---|---|---|")
for n in names:
    o = [t.get(n, 0) for t in threads.get("pool", [])]
    w = [t.get(n, 0) for t in threads.get("inline", [])]
    print(f"| {n} | {med(o):.2f} ({min(o):.2f}–{max(o):.2f}) | {med(w):.2f} ({min(w):.2f}–{max(w):.2f}) |")

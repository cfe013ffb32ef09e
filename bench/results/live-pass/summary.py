#!/usr/bin/env python3
"""Medians (and spreads) per phase of the runs of run.sh: ops/s, p99.9, CPU per operation
(all threads), space at the phase's end; then each variant's CPU seconds by thread over the
whole run.

usage: summary.py [STEP] [DIR] [A,B]   (STEP mem1k, DIR this directory, variants old,new)"""
import glob, json, os, statistics, sys
args = sys.argv[1:]
step = args[0] if len(args) > 0 else "mem1k"
here = args[1] if len(args) > 1 else os.path.dirname(os.path.abspath(__file__))
A, B = (args[2] if len(args) > 2 else "old,new").split(",")
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
    print(f"| phase | {A} | {B} | {B}/{A} | runs |")
    print("|---|---|---|---|---|")
    for p in phases:
        o = [r[key] * scale for r in runs.get((p, A), []) if r.get(key) is not None]
        n = [r[key] * scale for r in runs.get((p, B), []) if r.get(key) is not None]
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
print(f"| thread | {A} | {B} |")
print("|---|---|---|")
for n in names:
    o = [t.get(n, 0) for t in threads.get(A, [])]
    w = [t.get(n, 0) for t in threads.get(B, [])]
    print(f"| {n} | {med(o):.2f} ({min(o):.2f}–{max(o):.2f}) | {med(w):.2f} ({min(w):.2f}–{max(w):.2f}) |")

#!/usr/bin/env python3
"""Medians of the mmap_reads A/B (run.sh): per phase, ops/s, p99.9, max, CPU per op and
space amplification with mmap_reads on and off, and their ratio. Usage: summary.py [prefix]
where prefix is '' (after the burst), 'quiet.' or 'ltm.'."""
import glob, json, statistics, sys, os

prefix = sys.argv[1] if len(sys.argv) > 1 else ""
here = os.path.dirname(os.path.abspath(__file__))
rows = {}  # (phase, mapped) -> list of records
for path in sorted(glob.glob(os.path.join(here, f"{prefix}r[0-9]*.*.jsonl"))):
    name = os.path.basename(path)[len(prefix):]
    mapped = name.split(".")[1]
    for line in open(path):
        r = json.loads(line)
        if "phase" in r and "ops_per_sec" in r:
            rows.setdefault((r["phase"], mapped), []).append(r)

def med(rs, k):
    v = [r[k] for r in rs if r.get(k) is not None]
    return statistics.median(v) if v else float("nan")

phases = []
for (p, _) in rows:
    if p not in phases:
        phases.append(p)
print(f"| phase | ops/s on | ops/s off | on/off | p99.9 µs on / off | max µs on / off | CPU µs/op on / off | space on / off | runs |")
print("|---|---|---|---|---|---|---|---|---|")
for p in phases:
    on, off = rows.get((p, "true"), []), rows.get((p, "false"), [])
    if not on or not off:
        continue
    a, b = med(on, "ops_per_sec"), med(off, "ops_per_sec")
    print(f"| {p} | {a:,.0f} ({min(r['ops_per_sec'] for r in on):,.0f}–{max(r['ops_per_sec'] for r in on):,.0f}) "
          f"| {b:,.0f} ({min(r['ops_per_sec'] for r in off):,.0f}–{max(r['ops_per_sec'] for r in off):,.0f}) | {a / b:.2f} "
          f"| {med(on, 'p999_us'):,.0f} / {med(off, 'p999_us'):,.0f} | {med(on, 'max_us'):,.0f} / {med(off, 'max_us'):,.0f} "
          f"| {med(on, 'cpu_us_per_op'):.1f} / {med(off, 'cpu_us_per_op'):.1f} | {med(on, 'space_amp'):.2f} / {med(off, 'space_amp'):.2f} "
          f"| {len(on)}+{len(off)} |")

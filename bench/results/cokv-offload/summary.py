#!/usr/bin/env python3
"""Medians (min-max) of an offload comparison (small.sh or ycsb.sh), one table per
phase: ops/s, CPU seconds of the bench process (all phases up to the end) and of the
worker, process write amplification, bytes compaction wrote on each side, p99.9 and max
latency, stall time. Usage: summary.py DIR PREFIX (small or ycsb)."""
import json, re, statistics, sys, glob, os

d, prefix = sys.argv[1], sys.argv[2]
rows = {}  # phase -> cfg -> [metrics]
for path in sorted(glob.glob(os.path.join(d, f"{prefix}-r*.jsonl"))):
    cfg = path.rsplit(".", 2)[1]
    lines = [json.loads(l) for l in open(path) if l.strip()]
    if not lines:
        continue  # a run in progress, or one that failed
    err = open(path[:-len("jsonl")] + "err").read()
    m = re.search(r"compaction worker \(pid \d+\): CPU ([\d.]+) s, wrote ([\d.]+) MiB", err)
    worker_cpu, worker_mib = (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)
    m = re.search(r"compaction wrote ([\d.]+) MiB \(([\d.]+) MiB by the worker\)", err)
    by_worker = float(m.group(2)) if m else 0.0
    for r in lines:
        last = r is lines[-1]
        rows.setdefault(r["phase"], {}).setdefault(cfg, []).append({
            "ops/s": r["ops_per_sec"],
            "bench process CPU s": r["cpu_secs"],
            "worker CPU s (whole run)": worker_cpu if last else None,
            "bench process write amp (io)": r["write_amp_io"],
            "compaction GB written": r["compaction_write_bytes"] / 1e9,
            "by the worker, GB (whole run)": by_worker * (1 << 20) / 1e9 if last else None,
            "worker wrote (io), GB (whole run)": worker_mib * (1 << 20) / 1e9 if last else None,
            "p99.9 us": r["p999_us"],
            "max ms": r["max_us"] / 1000,
            "stall ms": (r["stall_micros"] or 0) / 1000,
        })
names = {"p1": "1 part", "p2": "2 parts", "p2w": "2 parts, 1 offloaded",
         "p2wn": "the same, outputs checked only"}
for phase, by_cfg in rows.items():
    cfgs = [c for c in ["p1", "p2", "p2w", "p2wn"] if c in by_cfg]
    n = min(len(v) for v in by_cfg.values())
    print(f"\n{phase}\n")
    print(f"| medians of {n} (min–max) | " + " | ".join(names[c] for c in cfgs) + " |")
    print("|---" * (len(cfgs) + 1) + "|")
    for metric in by_cfg[cfgs[0]][0]:
        cells = []
        for c in cfgs:
            vals = [x[metric] for x in by_cfg[c] if x[metric] is not None]
            if not vals:
                cells.append("–")
                continue
            if metric == "ops/s":
                fmt = lambda v: f"{v/1000:.0f}k"
            else:
                fmt = lambda v: f"{v:.2f}" if v < 10 else f"{v:.1f}"
            cells.append(f"{fmt(statistics.median(vals))} ({fmt(min(vals))}–{fmt(max(vals))})")
        if all(x == "–" for x in cells):
            continue
        print(f"| {metric} | " + " | ".join(cells) + " |")

#!/usr/bin/env python3
"""Medians over several twain-peers JSONL runs: ops/s, CPU us per op, space
amplification, idle CPU, net write amplification (per phase and a whole-run row),
p99 / p99.9 / max latency and write stalls per engine and phase, and twain's ratios
to each peer.

The whole-run write amplification of one run is the sum over its phases of
(write_bytes - cancelled_write_bytes) divided by the sum of their user_bytes.

Usage: bench/peers-median.py RUN1.jsonl RUN2.jsonl ...
"""
import json
import statistics
import sys
from collections import defaultdict


def main(paths):
    rows = defaultdict(list)  # (engine, index, phase) -> [record]
    runs = defaultdict(lambda: [0, 0, 0])  # (path, engine) -> [written, cancelled, user]
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                rows[(r["engine"], r["index"], r["phase"])].append(r)
                run = runs[(path, r["engine"])]
                run[0] += r["write_bytes"]
                run[1] += r["cancelled_write_bytes"]
                run[2] += r["user_bytes"]
    engines = sorted({e for e, _, _ in rows}, key=lambda e: (e != "twain", e))
    phases = sorted({(i, p) for _, i, p in rows})
    peers = [e for e in engines if e != "twain"]

    def med(engine, i, p, field):
        vals = [r[field] for r in rows.get((engine, i, p), []) if r.get(field) is not None]
        return statistics.median(vals) if vals else None

    def whole_run(engine):
        vals = [max(w - c, 0) / u for (p, e), (w, c, u) in runs.items() if e == engine and u > 0]
        return statistics.median(vals) if vals else None

    def table(title, field, fmt, ratios=False, total=None):
        print(f"## {title} (median of {len(paths)} runs)")
        head = ["phase"] + engines + ([f"twain/{e}" for e in peers] if ratios else [])
        print(" | ".join(head))
        for i, p in phases:
            cells = [p]
            vals = {e: med(e, i, p, field) for e in engines}
            cells += [fmt(vals[e]) if vals[e] is not None else "-" for e in engines]
            if ratios:
                for e in peers:
                    t, o = vals.get("twain"), vals.get(e)
                    cells.append(f"{t / o:.2f}" if t and o else "-")
            print(" | ".join(cells))
        if total:
            vals = {e: total(e) for e in engines}
            print(" | ".join(["whole run"] + [fmt(vals[e]) if vals[e] is not None else "-" for e in engines]))
        print()

    table("ops/s", "ops_per_sec", lambda v: f"{v:.0f}", ratios=True)
    table("CPU us per op", "cpu_us_per_op", lambda v: f"{v:.1f}")
    table("space amplification at phase end", "space_amp", lambda v: f"{v:.2f}")
    table("space amplification over the phase, time-weighted mean", "space_amp_mean", lambda v: f"{v:.2f}")
    table("space amplification over the phase, highest sample", "space_amp_max", lambda v: f"{v:.2f}")
    table("idle CPU, % of one core over the last 5 s of an idle phase", "idle_cpu_pct", lambda v: f"{v:.2f}")
    table("net write amplification ((write_bytes - cancelled) / user bytes)", "write_amp_io_net",
          lambda v: f"{v:.2f}", total=whole_run)
    table("p99 latency, us", "p99_us", lambda v: f"{v:.1f}")
    table("p99.9 latency, us", "p999_us", lambda v: f"{v:.1f}")
    table("max latency, us", "max_us", lambda v: f"{v:.0f}")
    table("write stalls, ms (the engine's counter)", "stall_micros", lambda v: f"{v / 1000:.1f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

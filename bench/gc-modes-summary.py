"""Medians of bench/gc-modes.sh runs: ops/s per phase, space and write amplification at the
end, GC counters per phase, and the ratios issue 4 sets targets for."""
import json
import os
import statistics
import sys

out = sys.argv[1]
rounds = sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d)))
configs = sorted({f[: -len(".jsonl")] for r in rounds for f in os.listdir(os.path.join(out, r)) if f.endswith(".jsonl")})


def labelled(path):
    """The phases of one run in order, each under its name, or NAME#k for the k-th of a
    name that repeats (P1, P2, P3 of the same update workload)."""
    rows = [json.loads(line) for line in open(path)]
    names = [r["phase"] for r in rows]
    seen = {}
    out = {}
    for r in rows:
        n = r["phase"]
        seen[n] = seen.get(n, 0) + 1
        out[n if names.count(n) == 1 else f"{n}#{seen[n]}"] = r
    return out


runs = {c: [labelled(os.path.join(out, r, c + ".jsonl")) for r in rounds] for c in configs}
# The phases in the order the runs wrote them.
phases = list(runs[configs[0]][0])


def cells(c, phase, field, scale=1.0, fmt="{:.0f}"):
    vals = [(run[phase].get(field) or 0) / scale for run in runs[c]]
    return fmt.format(statistics.median(vals)) + " (" + " / ".join(fmt.format(v) for v in vals) + ")"


print("| config | " + " | ".join(f"{p} kops/s" for p in phases) + " | space amp at end | engine write amp |")
print("|---" * (len(phases) + 3) + "|")
for c in configs:
    row = [cells(c, p, "ops_per_sec", 1000) for p in phases]
    row.append(cells(c, phases[-1], "space_amp", fmt="{:.2f}"))
    row.append(cells(c, phases[-1], "cum_write_amp_engine", fmt="{:.2f}"))
    print(f"| {c} | " + " | ".join(row) + " |")
print()
print(
    "| config | phase | GC runs | GC MB read | GC MB written | engine MB written | GC LSM lookups "
    "| SVTable searches | space amp at end | space amp, highest sample | p99 µs | p99.9 µs | max ms |"
)
print("|---" * 13 + "|")
for c in configs:
    for p in phases[1:]:
        print(
            f"| {c} | {p} | {cells(c, p, 'gc_runs')} | {cells(c, p, 'gc_read_bytes', 1e6)} | "
            f"{cells(c, p, 'gc_write_bytes', 1e6)} | {cells(c, p, 'engine_bytes_written', 1e6)} | "
            f"{cells(c, p, 'gc_lsm_lookups')} | {cells(c, p, 'svtable_searches')} | "
            f"{cells(c, p, 'space_amp', fmt='{:.2f}')} | {cells(c, p, 'space_amp_max', fmt='{:.2f}')} | "
            f"{cells(c, p, 'p99_us', fmt='{:.1f}')} | "
            f"{cells(c, p, 'p999_us', fmt='{:.0f}')} | {cells(c, p, 'max_us', 1000, fmt='{:.1f}')} |"
        )
print()


def ratio(a, b, phase):
    if a not in runs or b not in runs:
        return
    rs = [x[phase]["ops_per_sec"] / y[phase]["ops_per_sec"] for x, y in zip(runs[a], runs[b])]
    print(f"{a} / {b} {phase}: median {statistics.median(rs):.2f} (" + " / ".join(f"{r:.2f}" for r in rs) + ")")


# Issue 4's ratios, and issue 12's (the vlog baseline, the hash layout, the peers) when those ran.
for a, b in [
    ("dr50", "ll50"),
    ("dr50", "off"),
    ("dr", "vlog"),
    ("ll", "vlog"),
    ("dr", "ll"),
    ("hash", "vlog"),
    ("hash", "dr"),
    ("hash", "rocksdb"),
    ("hash", "blobdb"),
    ("dr", "rocksdb"),
    ("dr", "blobdb"),
]:
    for p in phases[1:]:
        if p.startswith("update") or p.startswith("overwrite") or p == "readrandomsame-2":
            ratio(a, b, p)

"""Medians of bench/results/cursor-batch/run.sh: per phase, ops/s, p99.9 and CPU per
operation for the two builds (spread over the rounds in parentheses), after / before, and
the read counters that say what each build did."""
import json
import os
import statistics
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def labelled(path):
    """A run's phases in order, each under its name, or NAME#k for the k-th of a repeat."""
    rows = [json.loads(line) for line in open(path)]
    names = [r["phase"] for r in rows]
    seen, res = {}, {}
    for r in rows:
        n = r["phase"]
        seen[n] = seen.get(n, 0) + 1
        res[n if names.count(n) == 1 else f"{n}#{seen[n]}"] = r
    return res


runs = {}
for name in ("before", "after"):
    files = sorted(f for f in os.listdir(out) if f.startswith(name + "-r") and f.endswith(".jsonl"))
    runs[name] = [labelled(os.path.join(out, f)) for f in files]
phases = [p for p in runs["before"][0] if not p.startswith("idle")]


def vals(name, phase, field):
    return [r[phase].get(field) or 0 for r in runs[name] if phase in r]


def cell(name, phase, field, fmt):
    v = vals(name, phase, field)
    if not v:
        return "-"
    return fmt.format(statistics.median(v)) + " (" + "–".join(fmt.format(x) for x in (min(v), max(v))) + ")"


print("| phase | ops/s before | ops/s after | after / before | p99.9 µs before / after | CPU µs/op before / after |")
print("|---|---|---|---|---|---|")
for p in phases:
    b, a = statistics.median(vals("before", p, "ops_per_sec")), statistics.median(vals("after", p, "ops_per_sec"))
    print(
        f"| {p} | {cell('before', p, 'ops_per_sec', '{:.0f}')} | {cell('after', p, 'ops_per_sec', '{:.0f}')} "
        f"| {a / b:.2f} | {statistics.median(vals('before', p, 'p999_us')):.0f} / {statistics.median(vals('after', p, 'p999_us')):.0f} "
        f"| {statistics.median(vals('before', p, 'cpu_us_per_op')):.1f} / {statistics.median(vals('after', p, 'cpu_us_per_op')):.1f} |"
    )
print()
fields = ["prefetch_reads", "svtable_searches", "handle_fixups", "gc_runs", "space_amp"]
print("| phase | " + " | ".join(f"{f} before / after" for f in fields) + " |")
print("|---" * (len(fields) + 1) + "|")
for p in phases:
    row = []
    for f in fields:
        fmt = "{:.2f}" if f == "space_amp" else "{:.0f}"
        b, a = vals("before", p, f), vals("after", p, f)
        row.append((fmt.format(statistics.median(b)) if b else "-") + " / " + (fmt.format(statistics.median(a)) if a else "-"))
    print(f"| {p} | " + " | ".join(row) + " |")

#!/usr/bin/env python3
"""Summary of bench/parallax.sh (issue 11): per mix, the medians over runs of ops/s,
I/O amplification and space amplification for each engine and phase, twain's ratios to
RocksDB and BlobDB, and the three-class twain against the better of twain-ms and twain-ml,
then the issue's targets.

I/O amplification of a phase = (device bytes read + written - cancelled writes) /
(user bytes written + user bytes read), from /proc/self/io (Parallax's definition: device
traffic per byte of the operations). Space amplification: the directory's allocated bytes /
live key + value bytes, at the end of the phase.

Usage: bench/parallax-summary.py bench/results/run9 [--svg FILE]
(--svg draws the median ops/s of each phase per mix and engine as grouped bars.)
"""
import json
import os
import statistics
import sys
from collections import defaultdict

MIXES = ["s", "m", "l", "sd", "md", "ld"]
ENGINES = ["twain", "twain-ms", "twain-ml", "rocksdb", "blobdb"]
PHASES = ["ycsb-load", "ycsb-a"]


def io_amp(r):
    user = r["user_bytes"] + r.get("user_read_bytes", 0)
    if user == 0:
        return None
    return (r["read_bytes"] + max(r["write_bytes"] - r["cancelled_write_bytes"], 0)) / user


def load(directory):
    rows = defaultdict(list)  # (mix, engine, phase) -> [record]
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".jsonl"):
            continue
        mix = name.split("-r")[0]
        with open(os.path.join(directory, name)) as f:
            for line in f:
                r = json.loads(line)
                r["io_amp"] = io_amp(r)
                rows[(mix, r["engine"], r["phase"])].append(r)
    return rows


def med(rows, key, field):
    vals = [r[field] for r in rows.get(key, []) if r.get(field) is not None]
    return statistics.median(vals) if vals else None


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def main(directory):
    rows = load(directory)
    mixes = [m for m in MIXES if any(k[0] == m for k in rows)]
    runs = max((len(v) for v in rows.values()), default=0)
    print(f"# medians of {runs} runs per mix, from {directory}\n")
    targets = []
    for metric, field, digits in [
        ("ops/s", "ops_per_sec", 0),
        ("I/O amplification", "io_amp", 2),
        ("space amplification (end of phase)", "space_amp", 2),
        ("p99.9 us", "p999_us", 0),
    ]:
        print(f"## {metric}")
        print("mix  phase       " + "".join(f"{e:>11}" for e in ENGINES))
        for mix in mixes:
            for p in PHASES:
                vals = [med(rows, (mix, e, p), field) for e in ENGINES]
                print(f"{mix:<4} {p:<11} " + "".join(f"{fmt(v, digits):>11}" for v in vals))
        print()
    print("## ratios (ops/s medians): twain / peer; twain / better of twain-ms, twain-ml")
    print("mix  phase       /rocksdb  /blobdb  /best-of-MS-ML  (which)  io-amp vs that one")
    for mix in mixes:
        for p in PHASES:
            t = med(rows, (mix, "twain", p), "ops_per_sec")
            r = med(rows, (mix, "rocksdb", p), "ops_per_sec")
            b = med(rows, (mix, "blobdb", p), "ops_per_sec")
            ms = med(rows, (mix, "twain-ms", p), "ops_per_sec")
            ml = med(rows, (mix, "twain-ml", p), "ops_per_sec")
            best_name, best = max(
                [("ms", ms or 0), ("ml", ml or 0)], key=lambda x: x[1]
            )
            tio = med(rows, (mix, "twain", p), "io_amp")
            bio = med(rows, (mix, f"twain-{best_name}", p), "io_amp")
            ratio = lambda a, c: a / c if a and c else None
            print(
                f"{mix:<4} {p:<11} {fmt(ratio(t, r)):>8} {fmt(ratio(t, b)):>8} "
                f"{fmt(ratio(t, best)):>15} {best_name:>8} {fmt(ratio(tio, bio)):>8}"
            )
            if mix in ("m", "md"):
                targets.append((f"{mix} {p}: twain / rocksdb >= 2", ratio(t, r), 2.0, True))
                targets.append((f"{mix} {p}: twain / blobdb >= 2", ratio(t, b), 2.0, True))
            targets.append(
                (f"{mix} {p}: twain / best of MS, ML (ops/s) >= 1", ratio(t, best), 1.0, True)
            )
            targets.append(
                (f"{mix} {p}: twain I/O amp / that one's <= 1.1", ratio(tio, bio), 1.1, False)
            )
        end = med(rows, (mix, "twain", PHASES[-1]), "space_amp")
        targets.append((f"{mix}: twain space amp at the end <= 1.3", end, 1.3, False))
    print("\n## issue 11 targets")
    for name, v, bound, at_least in targets:
        met = v is not None and (v >= bound if at_least else v <= bound)
        print(f"{name:<52} {fmt(v):>7}  {'yes' if met else 'NO'}")


COLORS = {"twain": "#1f77b4", "twain-ms": "#9ecae1", "twain-ml": "#6baed6",
          "rocksdb": "#d62728", "blobdb": "#ff9896"}


def svg(directory, path):
    rows = load(directory)
    mixes = [m for m in MIXES if any(k[0] == m for k in rows)]
    groups = [(m, p) for m in mixes for p in PHASES]
    vals = {(g, e): med(rows, (g[0], e, g[1]), "ops_per_sec") or 0 for g in groups for e in ENGINES}
    top = max(vals.values()) or 1
    bar, gap, h, left, base = 9, 14, 300, 60, 340
    width = left + len(groups) * (len(ENGINES) * bar + gap) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="420" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16" font-size="13">YCSB Load A / Run A, median ops/s of the runs in {directory}</text>']
    for i in range(5):
        y = base - h * i / 4
        out.append(f'<line x1="{left}" y1="{y}" x2="{width - 10}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 4}" y="{y + 4}" text-anchor="end">{int(top * i / 4 / 1000)}k</text>')
    x = left + 6
    for g in groups:
        for e in ENGINES:
            v = vals[(g, e)]
            bh = h * v / top
            out.append(f'<rect x="{x}" y="{base - bh:.1f}" width="{bar - 1}" height="{bh:.1f}" fill="{COLORS[e]}"><title>{e} {g[0]} {g[1]}: {v:.0f} ops/s</title></rect>')
            x += bar
        out.append(f'<text x="{x - len(ENGINES) * bar / 2}" y="{base + 14}" text-anchor="middle">{g[0].upper()}</text>')
        out.append(f'<text x="{x - len(ENGINES) * bar / 2}" y="{base + 27}" text-anchor="middle" fill="#666">{"load" if g[1] == "ycsb-load" else "run A"}</text>')
        x += gap
    lx = left
    for e in ENGINES:
        out.append(f'<rect x="{lx}" y="395" width="10" height="10" fill="{COLORS[e]}"/><text x="{lx + 14}" y="404">{e}</text>')
        lx += 90
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--svg" in args:
        i = args.index("--svg")
        svg_path = args[i + 1]
        del args[i:i + 2]
    else:
        svg_path = None
    d = args[0] if args else "bench/results/run9"
    main(d)
    if svg_path:
        svg(d, svg_path)

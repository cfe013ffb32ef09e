#!/usr/bin/env python3
"""The summary of a bench/suite.sh output directory, as Markdown: for each question of
docs/benchmarks.md, medians over the runs of each step (spread as min-max over runs),
twain's ratios to each peer (ratios of medians), and the goals of issue 15.

Usage: bench/suite-summary.py DIR [--quick]  (prints to standard output; --quick marks the
summary of a quick run, whose scales are smaller than the section titles say)
"""
import glob
import json
import os
import re
import statistics
import sys


def load(out, step):
    """The runs of a step: one list of phase records per rI.jsonl, in run order."""
    runs = []
    paths = [p for p in glob.glob(os.path.join(out, step, "r*.jsonl"))
             if re.fullmatch(r"r\d+\.jsonl", os.path.basename(p))]
    for path in sorted(paths, key=lambda p: int(os.path.basename(p)[1:-6])):
        with open(path) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        if recs:
            runs.append(recs)
    return runs


def engines_of(runs):
    seen = []
    for run in runs:
        for r in run:
            if r["engine"] not in seen:
                seen.append(r["engine"])
    return sorted(seen, key=lambda e: (not e.startswith("twain"), e != "twain", e))


def phases_of(runs):
    return sorted({(r["index"], r["phase"]) for run in runs for r in run})


def values(runs, engine, index, field):
    out = []
    for run in runs:
        for r in run:
            if r["engine"] == engine and r["index"] == index and r.get(field) is not None:
                out.append(r[field])
    return out


def whole_run_wamp(runs, engine):
    vals = []
    for run in runs:
        w = c = u = 0
        for r in run:
            if r["engine"] == engine:
                w += r["write_bytes"]
                c += r["cancelled_write_bytes"]
                u += r["user_bytes"]
        if u:
            vals.append(max(w - c, 0) / u)
    return vals


def med(vals):
    return statistics.median(vals) if vals else None


def cell(vals, fmt, spread=True):
    if not vals:
        return "-"
    m = fmt(statistics.median(vals))
    if spread and len(vals) > 1:
        return f"{m} ({fmt(min(vals))}–{fmt(max(vals))})"
    return m


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def kops(v):
    return f"{v / 1000:.1f}k" if v >= 1000 else f"{v:.0f}"


def f2(v):
    return f"{v:.2f}"


def f1(v):
    return f"{v:.1f}"


def ratio_cells(runs, engines, index, field):
    t = med(values(runs, "twain", index, field))
    out = []
    for e in engines:
        if e == "twain":
            continue
        o = med(values(runs, e, index, field))
        out.append(f2(t / o) if t and o else "-")
    return out


def step_tables(out, step, title):
    runs = load(out, step)
    if not runs:
        return f"### {title}\n\nNot run yet (`bench/suite.sh --steps {step}`).\n\n"
    engines = engines_of(runs)
    peers = [e for e in engines if e != "twain"]
    phases = phases_of(runs)
    text = f"### {title}\n\n"
    text += f"Step `{step}`, {len(runs)} run(s); medians, spread over runs in parentheses. "
    cmd = first_comment(out, step)
    if cmd:
        text += f"Command of run 1 (one engine per process): `{cmd}`.\n\n"
    else:
        text += "\n\n"
    sections = [
        ("ops/s", "ops_per_sec", kops, True),
        ("p99.9 latency, µs", "p999_us", f1, False),
        ("max latency, µs", "max_us", lambda v: f"{v:.0f}", False),
        ("space amplification at phase end", "space_amp", f2, False),
        ("space amplification over the phase, time-weighted mean (runs that sampled it)",
         "space_amp_mean", f2, False),
        ("space amplification over the phase, highest sample", "space_amp_max", f2, False),
        ("net write amplification of the phase", "write_amp_io_net", f2, False),
    ]
    for name, field, fmt, ratios in sections:
        head = ["phase"] + engines + ([f"twain/{p}" for p in peers] if ratios and "twain" in engines else [])
        rows = []
        for index, phase in phases:
            vals = [values(runs, e, index, field) for e in engines]
            if not any(vals):
                continue
            row = [phase] + [cell(v, fmt) for v in vals]
            if ratios and "twain" in engines:
                row += ratio_cells(runs, engines, index, field)
            rows.append(row)
        if rows:
            text += f"**{name}**\n\n" + table(head, rows) + "\n"
    text += "**whole-run net write amplification**: " + ", ".join(
        f"{e} {cell(whole_run_wamp(runs, e), f2)}" for e in engines) + "\n\n"
    peaks = cgroup_peaks(out, step)
    if peaks:
        text += "**memory cgroup** (run 1): " + "; ".join(peaks) + "\n\n"
    text += f"Plots of run 1: `{step}/r1.svg` (phases, latency, space against bytes written), `{step}/r1.time.svg` (throughput, space amplification, cumulative write amplification and memory over time).\n\n"
    return text


def engine_outputs(out, step):
    """The per-engine outputs of run 1 (rI.ENGINE.txt), twain's first."""
    paths = glob.glob(os.path.join(out, step, "r1.*.txt"))
    return sorted(paths, key=lambda p: (not p.endswith(".twain.txt"), p))


def first_comment(out, step):
    for path in engine_outputs(out, step):
        with open(path) as f:
            line = f.readline().strip()
        if line.startswith("# "):
            return line[2:]
    return None


def cgroup_peaks(out, step):
    peaks = []
    for path in engine_outputs(out, step):
        with open(path) as f:
            for line in f:
                m = re.match(r"# (\S+): memory cgroup peak (\S+) MiB of (\S+) MiB, limit reached (\S+) times", line)
                if m:
                    peaks.append(f"{m[1]} peak {m[2]} of {m[3]} MiB, limit reached {m[4]} times")
    return peaks


def failures(out):
    """Failed engine runs recorded in times.txt that no later attempt finished."""
    path = os.path.join(out, "times.txt")
    if not os.path.exists(path):
        return []
    # One line per engine run, its last failure and how many attempts failed (a resumed
    # suite retries a failed run, so times.txt may name it more than once).
    failed = {}
    for line in open(path):
        m = re.match(r"\S+ (\S+) r(\d+) (\S+) FAILED (.*)", line.strip())
        if m and not os.path.exists(os.path.join(out, m[1], f"r{m[2]}.{m[3]}.done")):
            why = m[4].replace(os.path.abspath(out) + os.sep, "")
            attempts = failed.get((m[1], m[2], m[3]), (0, ""))[0] + 1
            failed[(m[1], m[2], m[3])] = (attempts, why)
    return [
        f"{step} run {run}, {engine}: FAILED {why}" + (f" ({n} attempts)" if n > 1 else "")
        for (step, run, engine), (n, why) in failed.items()
    ]


def disk_mb_s(out):
    path = os.path.join(out, "disk.txt")
    if not os.path.exists(path):
        return None, ""
    text = open(path).read()
    m = re.search(r"([\d.]+) ([MG])B/s", text)
    if not m:
        return None, text
    v = float(m[1]) * (1000 if m[2] == "G" else 1)
    return v, text


def sweep(out):
    sizes = [64, 256, 1024, 4096, 16384, 65536]
    disk, _ = disk_mb_s(out)
    text = "### Value-size sweep (WiscKey figures 8–9)\n\n"
    text += "Load (fillrandom) and random lookup (readrandom) with a constant data volume; medians. "
    if disk:
        text += f"The disk's synced sequential write bandwidth, measured by the suite with dd: **{disk:.0f} MB/s**.\n\n"
    else:
        text += "\n\n"
    engines = []
    data = {}
    for size in sizes:
        runs = load(out, f"sweep-{size}")
        if not runs:
            continue
        for e in engines_of(runs):
            if e not in engines:
                engines.append(e)
        data[size] = runs
    if not data:
        return text + "Not run yet (`bench/suite.sh --steps sweep-64,...`).\n\n"
    head = ["value size"] + [f"{e} load MB/s" for e in engines] + (["twain load, % of disk"] if disk else [])
    rows = []
    for size, runs in data.items():
        fill = [i for i, p in phases_of(runs) if p.startswith("fill")]
        if not fill:
            continue
        vals = [values(runs, e, fill[0], "mb_per_sec") for e in engines]
        row = [str(size)] + [cell(v, f1) for v in vals]
        if disk:
            t = med(values(runs, "twain", fill[0], "mb_per_sec"))
            row.append(f"{100 * t / disk:.0f}%" if t else "-")
        rows.append(row)
    text += "**load, MB/s of key + value bytes**\n\n" + table(head, rows) + "\n"
    for phase_name, title in [("fillrandom", "load"), ("readrandom", "random lookup")]:
        head = ["value size"] + [f"{e} ops/s" for e in engines] + [f"twain/{e}" for e in engines if e != "twain"]
        rows = []
        for size, runs in data.items():
            idx = [i for i, p in phases_of(runs) if p == phase_name]
            if not idx:
                continue
            row = [str(size)] + [cell(values(runs, e, idx[0], "ops_per_sec"), kops) for e in engines]
            row += ratio_cells(runs, engines, idx[0], "ops_per_sec")
            rows.append(row)
        text += f"**{title}, ops/s**\n\n" + table(head, rows) + "\n"
    return text


def seeds(out):
    text = "### The seeds' own comparisons\n\n"
    text += "WiscKey against an LSM-tree with values inline: twain against RocksDB from the sweep above "
    text += "(the paper compares with LevelDB on a 100 GB database: load 2.5×–111×, 46× at 1 KiB and 111× at 4 KiB; "
    text += "random lookup 1.6×–14×, 12× at 1 KiB).\n\n"
    rows = []
    for size in [64, 256, 1024, 4096, 16384, 65536]:
        runs = load(out, f"sweep-{size}")
        if not runs or "rocksdb" not in engines_of(runs):
            continue
        ph = dict((p, i) for i, p in phases_of(runs))
        load_r = ratio_cells(runs, ["twain", "rocksdb"], ph.get("fillrandom"), "ops_per_sec")
        read_r = ratio_cells(runs, ["twain", "rocksdb"], ph.get("readrandom"), "ops_per_sec")
        rows.append([str(size), load_r[0], read_r[0]])
    if rows:
        text += table(["value size", "twain/rocksdb load", "twain/rocksdb lookup"], rows) + "\n"
    runs = load(out, "novkv")
    text += "NovKV against the WiscKey baseline: twain (`gc_mode = drop-records`) against twain-vlog "
    text += "(`gc_mode = vlog`: the tail collected, GC asks the tree), with twain-lookup (`gc_mode = lsm-lookup`: files picked by drop records, GC asks the tree) beside them. "
    text += "The paper reports up to 1.98× on random writes and 1.85× on random reads (LevelDB-based, after warm-up).\n\n"
    if runs:
        rows = []
        for index, phase in phases_of(runs):
            t = values(runs, "twain", index, "ops_per_sec")
            v = values(runs, "twain-vlog", index, "ops_per_sec")
            w = values(runs, "twain-lookup", index, "ops_per_sec")
            r = f2(med(t) / med(v)) if t and v else "-"
            paper = {"updatezipf": "1.98× (writes)", "readrandom": "1.85× (reads)"}.get(phase, "")
            rows.append([phase, cell(t, kops), cell(v, kops), cell(w, kops), r, paper])
        text += table(["phase", "twain", "twain-vlog", "twain-lookup", "twain / twain-vlog", "paper"], rows) + "\n"
    else:
        text += "Not run yet (`bench/suite.sh --steps novkv`).\n\n"
    return text


def goals(out):
    """Issue 15's goals at 10 M x 1 KiB larger than memory, and the large-value load."""
    rows = []
    runs = load(out, "scale-1k-ltm")
    if runs:
        ph = dict((p, i) for i, p in reversed(phases_of(runs)))  # the first of each name
        def r(peer, phase):
            c = ratio_cells(runs, ["twain", peer], ph.get(phase), "ops_per_sec") if phase in ph else ["-"]
            return c[0]
        rows.append(["fill ≥ 3× RocksDB", r("rocksdb", "fillrandom")])
        rows.append(["fill ≥ 2.5× BlobDB", r("blobdb", "fillrandom")])
        rows.append(["updates ≥ 2.5× RocksDB", r("rocksdb", "updatezipf")])
        rows.append(["updates ≥ 2.5× BlobDB", r("blobdb", "updatezipf")])
        sa = values(runs, "twain", ph.get("updatezipf", -1), "space_amp")
        rows.append(["space amplification at the end of the updates ≤ 1.3", cell(sa, f2)])
        rows.append(["point reads (readrandom after the updates) ≥ 1.0× RocksDB",
                     ratio_cells(runs, ["twain", "rocksdb"], max(i for i, p in phases_of(runs) if p == "readrandom"), "ops_per_sec")[0]
                     if "readrandom" in ph else "-"])
    disk, _ = disk_mb_s(out)
    for size in [16384, 65536]:
        runs = load(out, f"sweep-{size}")
        if runs and disk:
            t = med(values(runs, "twain", 0, "mb_per_sec"))
            rows.append([f"{size} B values load at ≥ 80% of the disk ({disk:.0f} MB/s)", f"{100 * t / disk:.0f}%" if t else "-"])
    if not rows:
        return ""
    return "### Goals (issue 15)\n\n" + table(["goal", "measured"], rows) + "\n"


def scan_targets(out):
    """Issue 14's targets: 100-pair scans >= 1.0x RocksDB at 1 KiB and >= 1.3x at 4 KiB (in
    memory and larger than memory), >= 2x BlobDB and fjall, key-only scans >= 3x RocksDB's
    scans with values."""
    rows = []
    for step, floor in [("scans-1k", 1.0), ("scans-4k", 1.3), ("scans-1k-ltm", 1.0), ("scans-4k-ltm", 1.3)]:
        runs = load(out, step)
        if not runs:
            continue
        ph = {p: i for i, p in phases_of(runs)}
        if "scan100" not in ph:
            continue
        t = med(values(runs, "twain", ph["scan100"], "ops_per_sec"))
        for peer, goal in [("rocksdb", floor), ("blobdb", 2.0), ("fjall", 2.0)]:
            o = med(values(runs, peer, ph["scan100"], "ops_per_sec"))
            if t and o:
                rows.append([f"{step}: 100-pair scans, twain/{peer} ≥ {goal}", f2(t / o), "yes" if t / o >= goal else "NO"])
        k = med(values(runs, "twain", ph.get("scankeys100", -1), "ops_per_sec"))
        r = med(values(runs, "rocksdb", ph["scan100"], "ops_per_sec"))
        if k and r:
            rows.append([f"{step}: twain key-only / rocksdb scans with values ≥ 3", f2(k / r), "yes" if k / r >= 3 else "NO"])
    if not rows:
        return ""
    return "### Issue 14's targets\n\n" + table(["target", "measured", "met"], rows) + "\n"


def cokv_targets(out):
    """Issue 13's targets on the 100 B fill: sub-compactions against none, twain against
    RocksDB at the same setting, compaction bytes written."""
    one, two = load(out, "cokv-100b-p1"), load(out, "cokv-100b-p2")
    text = "### Issue 13 targets (100 B fill)\n\n"
    if not one or not two:
        return text + "Not run yet (`bench/suite.sh --steps cokv-100b-p1,cokv-100b-p2`).\n\n"
    m = lambda runs, e, f: med(values(runs, e, 0, f))
    rows = []
    def row(target, measured, floor=None, ceiling=None):
        ok = measured is not None and (floor is None or measured >= floor) and (ceiling is None or measured <= ceiling)
        met = "-" if floor is None and ceiling is None else ("yes" if ok else "NO")
        rows.append([target, f2(measured) if measured is not None else "-", met])
    ratio = lambda a, b: a / b if a and b else None
    row("twain 2 parts / twain 1 part, ops/s >= 1.3",
        ratio(m(two, "twain", "ops_per_sec"), m(one, "twain", "ops_per_sec")), floor=1.3)
    for name, runs in (("1 part", one), ("2 parts", two)):
        row(f"twain / rocksdb ops/s, {name} each, >= 1.5",
            ratio(m(runs, "twain", "ops_per_sec"), m(runs, "rocksdb", "ops_per_sec")), floor=1.5)
        row(f"twain / rocksdb compaction bytes written, {name} each, <= 1.0",
            ratio(m(runs, "twain", "compaction_write_bytes"), m(runs, "rocksdb", "compaction_write_bytes")),
            ceiling=1.0)
        row(f"twain / rocksdb CPU seconds, {name} each",
            ratio(m(runs, "twain", "cpu_secs"), m(runs, "rocksdb", "cpu_secs")))
    return text + table(["target", "measured", "met"], rows) + "\n"


def main(out, quick):
    disk, disk_text = disk_mb_s(out)
    print(f"# Benchmark suite summary: {os.path.basename(os.path.abspath(out))}\n")
    if quick:
        print("**Quick mode**: every step ran at a small scale (each section gives its command), "
              "not at the scale its title names. These figures check that the suite works; "
              "they are not results.\n")
    if disk_text:
        print("Disk, measured at the start of the suite:\n\n```\n" + disk_text.strip() + "\n```\n")
    failed = failures(out)
    if failed:
        print("**Runs that failed** (not in the tables; rerun the suite to retry them):\n")
        print("\n".join(f"- {f}" for f in failed) + "\n")
    print("## Headline\n")
    print(step_tables(out, "headline-1k", "1 M × 1 KiB, in memory"))
    print(step_tables(out, "headline-100b", "2 M × 100 B, in memory"))
    print("## Scale and steady state\n")
    print(step_tables(out, "scale-1k", "10 M × 1 KiB, in memory, updates 3× the data"))
    print(step_tables(out, "scale-1k-ltm", "10 M × 1 KiB, larger than memory (2 GiB cgroup), updates 3× the data"))
    print(step_tables(out, "scale-100b", "50 M × 100 B, in memory, updates 3× the data"))
    print(step_tables(out, "scale-100b-ltm", "50 M × 100 B, larger than memory (1 GiB cgroup), updates 3× the data"))
    print(goals(out))
    print("## Value sizes\n")
    print(sweep(out))
    print("## YCSB A–F\n")
    print(step_tables(out, "ycsb", "YCSB, zipfian 0.99, 1 KiB records"))
    print("## Durability and threads\n")
    for t in (1, 4, 16):
        print(step_tables(out, f"sync-t{t}", f"sync on every write, {t} writer thread(s)"))
    print(step_tables(out, "mixed-t4", "4 threads, YCSB A (50% reads, 50% updates)"))
    print("## Scans (issue 14)\n")
    print(step_tables(out, "scans-1k", "2 M × 1 KiB after 2 M zipfian updates: scans of 10, 100, 1,000 pairs, key-only scans of 100"))
    print(step_tables(out, "scans-4k", "500 k × 4 KiB after 500 k zipfian updates: the same scans"))
    print(step_tables(out, "scans-1k-ltm", "5 M × 1 KiB, larger than memory (1 GiB cgroup): the same scans"))
    print(step_tables(out, "scans-4k-ltm", "1.25 M × 4 KiB, larger than memory (1 GiB cgroup): the same scans"))
    print(scan_targets(out))
    print("## Sub-compactions (issue 13, Co-KV)\n")
    print(step_tables(out, "cokv-100b-p1", "30 M × 100 B fill, max_subcompactions 1 (twain and RocksDB)"))
    print(step_tables(out, "cokv-100b-p2", "30 M × 100 B fill, max_subcompactions 2 (twain and RocksDB)"))
    print(cokv_targets(out))
    print(step_tables(out, "cokv-100b-offload", "30 M × 100 B fill, 2 parts: in process (twain), one offloaded to a compaction worker (twain-worker), RocksDB"))
    print(step_tables(out, "cokv-ycsb-1k-p1", "1 M × 1 KiB, then 4 M zipfian updates, max_subcompactions 1 (twain and RocksDB)"))
    print(step_tables(out, "cokv-ycsb-1k", "1 M × 1 KiB, then 4 M zipfian updates, 2 parts: in process, one offloaded, RocksDB"))
    print("## The seeds' comparisons\n")
    print(seeds(out))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    if len(args) != 1:
        sys.exit(__doc__)
    main(args[0], "--quick" in sys.argv[1:])

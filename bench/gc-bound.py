#!/usr/bin/env python3
"""How low can copy-forward value GC keep space amplification during a zipfian update
burst? A model of `--scale 1k` (issue 10's 1 KiB `updatezipf` target), not of twain's code.

The workload is the benchmark's: N keys of 1 KiB loaded in a random order, then U puts drawn
by YCSB's scrambled zipfian (theta 0.99, FNV-1a over 10^10 items mod N, as
crates/twain-bench/src/dist.rs). Records of 1,064 bytes (key, value, framing) are appended
to 128 MiB value files. Two bounds:

- **oracle**: at the end of the burst, knowing exactly which records are dead, collect the
  deadest files until the figure is under each target: the least GC I/O any policy needs.
- **online**: during the burst, GC with *perfect and immediate* knowledge of dead records
  (twain learns them later, from flushes and compactions) collects the deadest sealed file
  whenever the figure is above the target, with a budget of BUDGET bytes of GC I/O (read +
  write) per user byte written. twain's GC did 1.5 per user byte in run 8's updatezipf
  (2.06 GB read, 1.08 GB written, 2.08 GB of puts).

Usage: bench/gc-bound.py [BUDGET ...]  (default 1.5 2.5 4); about a minute per budget.
"""
import random
import sys

N, U = 1_000_000, 2_000_000
REC = 16 + 1024 + 24
PER = (128 << 20) // REC
ITEMS, THETA, ZETAN = 10_000_000_000, 0.99, 26.46902820178302
ZETA2 = 1 + 0.5 ** THETA
ALPHA = 1 / (1 - THETA)
ETA = (1 - (2 / ITEMS) ** (1 - THETA)) / (1 - ZETA2 / ZETAN)


def zipf(r):
    uz = r * ZETAN
    if uz < 1:
        return 0
    if uz < 1 + 0.5 ** THETA:
        return 1
    return int(ITEMS * ((ETA * r - ETA + 1) ** ALPHA))


def fnv(v):
    h = 0xCBF29CE484222325
    for i in range(8):
        h ^= (v >> (8 * i)) & 0xFF
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def keys(seed=1):
    """The load order, then the update keys."""
    rnd = random.Random(seed)
    order = list(range(N))
    rnd.shuffle(order)
    return order, [fnv(zipf(rnd.random())) % N for _ in range(U)]


class Files:
    """Value files: which keys each holds live, and how many records it holds."""

    def __init__(self):
        self.live, self.size, self.where = [], [], {}

    def append(self, k):
        if not self.size or self.size[-1] >= PER:
            self.live.append(set())
            self.size.append(0)
        self.put(k, len(self.size) - 1)

    def put(self, k, f):
        old = self.where.get(k)
        if old is not None:
            self.live[old].discard(k)
        self.live[f].add(k)
        self.size[f] += 1
        self.where[k] = f

    def disk(self):
        return sum(self.size) * REC

    def collect(self, f):
        """Rewrites file f's live records into a new file; returns (read, written) bytes."""
        moved = list(self.live[f])
        read = self.size[f] * REC
        self.live[f], self.size[f] = set(), 0
        self.live.append(set())
        self.size.append(0)
        out = len(self.size) - 1
        for k in moved:
            self.put(k, out)
        return read, len(moved) * REC


def oracle(order, updates):
    fs = Files()
    for k in order + updates:
        fs.append(k)
    live = N * REC
    print(f"after the burst: {fs.disk() / 1e9:.2f} GB on disk, {live / 1e9:.2f} GB live, "
          f"space amplification {fs.disk() / live:.2f}")
    for target in (1.5, 1.3):
        disk, read, wrote = fs.disk(), 0, 0
        for f in sorted(range(len(fs.size)), key=lambda f: len(fs.live[f]) / fs.size[f]):
            if disk <= target * live:
                break
            read += fs.size[f] * REC
            wrote += len(fs.live[f]) * REC
            disk -= (fs.size[f] - len(fs.live[f])) * REC
        print(f"oracle, to {target}: GC reads {read / 1e9:.2f} GB and writes {wrote / 1e9:.2f} GB "
              f"(ends at {disk / live:.2f})")


def online(order, updates, budget, target=1.3):
    fs = Files()
    for k in order:
        fs.append(k)
    live, credit, read, wrote = N * REC, 0.0, 0, 0
    for i, k in enumerate(updates):
        fs.append(k)
        credit += budget * REC
        if i % 5000:
            continue
        while fs.disk() > target * live and credit > 0:
            active = len(fs.size) - 1
            sealed = [f for f in range(active) if fs.size[f] > 0]
            f = min(sealed, key=lambda f: len(fs.live[f]) / fs.size[f])
            if len(fs.live[f]) / fs.size[f] > 0.9:
                break
            # The GC output goes into a file of its own; the log's active file stays last.
            r, w = fs.collect(f)
            fs.live[-1], fs.live[-2] = fs.live[-2], fs.live[-1]
            fs.size[-1], fs.size[-2] = fs.size[-2], fs.size[-1]
            for kk in fs.live[-2]:
                fs.where[kk] = len(fs.size) - 2
            for kk in fs.live[-1]:
                fs.where[kk] = len(fs.size) - 1
            read, wrote, credit = read + r, wrote + w, credit - r - w
    print(f"online, budget {budget} GC bytes per user byte, target {target}: ends at "
          f"{fs.disk() / live:.2f}, GC read {read / 1e9:.2f} GB, wrote {wrote / 1e9:.2f} GB")


def main(budgets):
    order, updates = keys()
    oracle(order, updates)
    for b in budgets:
        online(order, updates, b)


if __name__ == "__main__":
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        sys.exit(__doc__)
    main([float(a) for a in args] or [1.5, 2.5, 4.0])

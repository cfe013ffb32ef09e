"""Model test: seeded random operations against a dict, checked at every read.

Operations: puts (inline and separated values), deletes, batches (written, or in with
blocks that commit or raise), point reads, mapping reads and writes, ranges and prefixes in
both directions, seeks, snapshots read later, flushes, compactions, value GC and reopening.
Small memtables and value files make the tables and value files turn over.
"""

import contextlib
import itertools
import random

import pytest

import twaindb

OPTIONS = {"memtable_size": "16K", "value_file_size": "64K", "gc_threshold": 0.9}


def random_key(rng):
    if rng.random() < 0.9:
        return b"k%03d" % rng.randrange(300)
    return bytes(rng.randrange(256) for _ in range(rng.randrange(4)))


def random_value(rng):
    size = rng.choice([0, 5, 40, 255, 300, 1500])  # around the 256-byte inline threshold
    stamp = b"%010d" % rng.randrange(10**10)
    return (stamp * (size // 10 + 1))[:size]


def expected_range(model, start, end, reverse):
    pairs = sorted(
        (k, v)
        for k, v in model.items()
        if (start is None or k >= start) and (end is None or k < end)
    )
    return pairs[::-1] if reverse else pairs


def write_a_batch(rng, db, model):
    """A batch of puts and deletes: written by Db.write, or by a with block that commits,
    or by one that raises (and so writes nothing)."""
    how = rng.choice(["write", "with", "raise"])
    batch = twaindb.WriteBatch() if how == "write" else db.write_batch()
    changes = {}
    with contextlib.suppress(Discarded), contextlib.ExitStack() as stack:
        if how != "write":
            stack.enter_context(batch)
        for _ in range(rng.randrange(1, 20)):
            k = random_key(rng)
            if rng.random() < 0.7:
                v = random_value(rng)
                batch.put(k, v)
                changes[k] = v
            else:
                batch.delete(k)
                changes[k] = None
        if how == "raise":
            raise Discarded
    if how == "write":
        db.write(batch)
    if how != "raise":
        for k, v in changes.items():
            if v is None:
                model.pop(k, None)
            else:
                model[k] = v


class Discarded(Exception):
    """Raised in a batch's with block, to discard it."""


def seek_and_read(rng, db, model, step):
    """A seek on an iterator of a random kind and direction, then a few steps."""
    kind = rng.choice(["items", "keys", "values"])
    reverse = rng.random() < 0.5
    target = random_key(rng)
    it = getattr(db, kind)(reverse=reverse)
    it.seek(target)
    pairs = sorted(model.items(), reverse=reverse)
    if reverse:
        pairs = [(k, v) for k, v in pairs if k <= target]
    else:
        pairs = [(k, v) for k, v in pairs if k >= target]
    n = rng.randrange(1, 6)
    expected = {
        "items": pairs[:n],
        "keys": [k for k, _ in pairs[:n]],
        "values": [v for _, v in pairs[:n]],
    }[kind]
    assert list(itertools.islice(it, n)) == expected, f"step {step}: seek {target!r}"
    it.close()


def expected_prefix(model, prefix, reverse):
    pairs = sorted((k, v) for k, v in model.items() if k.startswith(prefix))
    return pairs[::-1] if reverse else pairs


@pytest.mark.parametrize("seed", range(6))
def test_random_operations_match_a_dict(path, seed):
    rng = random.Random(seed)
    model = {}
    snapshots = []  # (snapshot, the model when it was taken)
    db = twaindb.Db(path, **OPTIONS)
    try:
        for step in range(2000):
            op = rng.random()
            if op < 0.35:
                k, v = random_key(rng), random_value(rng)
                if rng.random() < 0.5:
                    db.put(k, v, sync=rng.random() < 0.05)
                else:
                    db[k] = v
                model[k] = v
            elif op < 0.45:
                k = random_key(rng)
                if rng.random() < 0.5:
                    db.delete(k)
                else:
                    del db[k]
                model.pop(k, None)
            elif op < 0.52:
                write_a_batch(rng, db, model)
            elif op < 0.70:
                k = random_key(rng)
                assert db.get(k) == model.get(k), f"step {step}: get {k!r}"
                assert (k in db) == (k in model), f"step {step}: in {k!r}"
                if k in model:
                    assert db[k] == model[k], f"step {step}: [{k!r}]"
                else:
                    with pytest.raises(KeyError):
                        db[k]
            elif op < 0.80:
                start = random_key(rng) if rng.random() < 0.7 else None
                end = random_key(rng) if rng.random() < 0.7 else None
                reverse = rng.random() < 0.5
                got = list(db.range(start, end, reverse=reverse))
                assert got == expected_range(model, start, end, reverse), f"step {step}"
            elif op < 0.85:
                prefix = random_key(rng)[: rng.randrange(4)]
                reverse = rng.random() < 0.5
                got = list(db.prefix(prefix, reverse=reverse))
                assert got == expected_prefix(model, prefix, reverse), f"step {step}"
            elif op < 0.87:
                seek_and_read(rng, db, model, step)
            elif op < 0.90:
                snapshots.append((db.snapshot(), dict(model)))
                if len(snapshots) > 3:
                    snapshots.pop(0)[0].close()
            elif op < 0.94 and snapshots:
                snap, then = rng.choice(snapshots)
                k = random_key(rng)
                assert snap.get(k) == then.get(k), f"step {step}: snapshot get"
                reverse = rng.random() < 0.5
                assert list(snap.iter(reverse=reverse)) == expected_range(
                    then, None, None, reverse
                ), f"step {step}: snapshot iter"
            elif op < 0.96:
                db.flush()
            elif op < 0.98:
                db.compact_range()
            elif op < 0.99:
                assert db.gc() >= 0
            else:
                db.close()
                for snap, _ in snapshots:
                    assert snap.closed
                snapshots.clear()
                db = twaindb.Db(path, **OPTIONS)
        assert list(db.iter()) == expected_range(model, None, None, False)
        assert list(db.iter(reverse=True)) == expected_range(model, None, None, True)
    finally:
        db.close()
    with twaindb.Db(path, **OPTIONS) as db:
        assert dict(db.iter()) == model

"""Iterators as cursors: seek(key) in both directions and within bounds, for every kind
(items, keys, values, entries); close(), closed, and the with block."""

import time

import pytest

import twaindb

KEYS = [b"a", b"ab", b"abc", b"b", b"ba", b"c", b"\xff"]

# Every kind of iterator, made from a reader, and what an item's key is.
KINDS = {
    "items": (lambda r, **kw: r.items(**kw), lambda item: item[0]),
    "keys": (lambda r, **kw: r.keys(**kw), lambda item: item),
    "values": (lambda r, **kw: r.values(**kw), lambda item: item.lower()),
    "entries": (lambda r, **kw: r.entries(**kw), lambda item: item.key),
}


@pytest.fixture(params=["memtable", "tables"])
def filled(request, db):
    """`db` holding KEYS (value: key upper-cased), in the memtable or in table files."""
    for k in KEYS:
        db.put(k, k.upper())
    if request.param == "tables":
        db.flush()
    return db


def walk(kind, it):
    """The keys an iterator of `kind` yields from where it stands."""
    return [KINDS[kind][1](item) for item in it]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize(
    "target, forward, backward",
    [
        (b"b", KEYS[3:], KEYS[3::-1]),  # a key present: yielded both ways
        (b"aa", KEYS[1:], KEYS[:1]),  # between keys
        (b"", KEYS, []),  # before everything
        (b"\xff\xff", [], KEYS[::-1]),  # past everything
    ],
)
def test_seek_moves_to_the_first_key_at_or_after_or_in_reverse_at_or_before(
    filled, kind, target, forward, backward
):
    make = KINDS[kind][0]
    it = make(filled)
    it.seek(target)
    assert walk(kind, it) == forward
    it = make(filled, reverse=True)
    it.seek(target)
    assert walk(kind, it) == backward


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_seek_stays_within_the_range_or_prefix(filled, kind):
    make = KINDS[kind][0]
    it = make(filled, start=b"ab", end=b"c")
    it.seek(b"a")  # before the range: its first key
    assert walk(kind, it) == [b"ab", b"abc", b"b", b"ba"]
    it.seek(b"zz")  # past the range: nothing
    assert walk(kind, it) == []
    it = make(filled, start=b"ab", end=b"c", reverse=True)
    it.seek(b"zz")  # past the range, backwards: its last key
    assert walk(kind, it) == [b"ba", b"b", b"abc", b"ab"]
    it = make(filled, prefix=b"a")
    it.seek(b"ab\x00")
    assert walk(kind, it) == [b"abc"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_seek_goes_back_and_starts_an_exhausted_iterator_again(filled, kind):
    it = KINDS[kind][0](filled)
    assert walk(kind, it) == KEYS
    it.seek(b"ba")
    assert walk(kind, [next(it)]) == [b"ba"]
    it.seek(b"a")
    assert walk(kind, it) == KEYS


def test_the_ranges_and_prefix_iterators_seek_too(filled):
    it = filled.range(b"b")
    it.seek(b"bb")
    assert list(it) == [(b"c", b"C"), (b"\xff", b"\xff")]
    it = filled.prefix(b"a", reverse=True)
    it.seek(b"ab")
    assert list(it) == [(b"ab", b"AB"), (b"a", b"A")]
    it = filled.iter()
    it.seek(bytearray(b"c"))
    assert next(it) == (b"c", b"C")


def test_a_seek_keeps_the_iterators_view(filled):
    it = filled.keys()
    filled.put(b"bb", b"later")
    filled.delete(b"c")
    it.seek(b"b")
    assert list(it) == [b"b", b"ba", b"c", b"\xff"]


def test_seek_on_a_snapshots_iterator(filled):
    with filled.snapshot() as snap:
        filled.delete(b"b")
        it = snap.values()
        it.seek(b"b")
        assert next(it) == b"B"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_close_releases_the_iterator(filled, kind):
    it = KINDS[kind][0](filled)
    assert not it.closed
    next(it)
    it.close()
    assert it.closed
    with pytest.raises(twaindb.ClosedError, match="iterator is closed"):
        next(it)
    with pytest.raises(twaindb.ClosedError, match="iterator is closed"):
        it.seek(b"a")
    it.close()  # idempotent
    # Other iterators and the database go on.
    assert walk(kind, KINDS[kind][0](filled)) == KEYS
    filled.close()
    with pytest.raises(twaindb.ClosedError, match="iterator is closed"):
        next(it)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_with_block_closes_the_iterator(filled, kind):
    with KINDS[kind][0](filled) as it:
        assert walk(kind, [next(it)]) == [b"a"]
    assert it.closed
    with pytest.raises(KeyError), KINDS[kind][0](filled) as it:
        raise KeyError("boom")
    assert it.closed


def test_closing_the_database_closes_its_iterators(filled):
    its = [KINDS[kind][0](filled) for kind in sorted(KINDS)]
    filled.close()
    for it in its:
        assert it.closed
        with pytest.raises(twaindb.ClosedError, match="database is closed"):
            next(it)
        with pytest.raises(twaindb.ClosedError, match="database is closed"):
            it.seek(b"a")


def test_a_closed_iterator_lets_compaction_drop_the_tables_it_held(path):
    """close() releases the iterator's view at once, not when it is garbage-collected."""

    def tables():
        return {p.name for p in path.iterdir() if p.suffix == ".sst"}

    def live_tables(db):
        """The tables of the current version: a table a background pass still reads is
        deleted when that pass ends, so wait until the directory holds no other."""
        deadline = time.monotonic() + 30
        while True:
            names = tables()
            if len(names) == sum(level["files"] for level in db.stats()["levels"]):
                return names
            assert time.monotonic() < deadline, "obsolete tables are never deleted"
            time.sleep(0.01)

    with twaindb.Db(path, memtable_size="64K") as db:
        for i in range(2000):
            db.put(b"%05d" % i, b"v" * 100)
        db.compact_range()  # no background work left to change the tables below
        it = db.iter()
        next(it)
        held = live_tables(db)
        db.compact_range()  # rewrites every table
        assert held <= tables(), "the open iterator keeps its tables"
        it.close()
        db.compact_range()
        # Nothing but a background pass that began before close() may still hold them.
        deadline = time.monotonic() + 30
        while held & tables():
            assert time.monotonic() < deadline, "the closed iterator still holds its tables"
            time.sleep(0.01)
        assert len(list(db.keys())) == 2000


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_an_error_ends_the_iteration_and_a_seek_starts_it_again(path, reverse):
    options = {"value_file_size": "64K", "inline_threshold": 16}
    value = b"value of 0005 " * 50
    with twaindb.Db(path, **options) as db:
        for i in range(300):
            db.put(b"%04d" % i, value if i == 5 else b"value %04d " % i * 50)
        db.flush()
    # Damage the value of key 0005, in the first value file (sealed: opening reads it not).
    first = min(p for p in path.iterdir() if p.suffix == ".vlog")
    data = bytearray(first.read_bytes())
    data[data.index(value) + 20] ^= 0x40
    first.write_bytes(bytes(data))
    with twaindb.Db(path, **options) as db:
        it = db.iter(reverse=reverse)
        it.seek(b"0010" if reverse else b"0000")
        seen = []
        with pytest.raises(twaindb.CorruptionError, match=r"\.vlog at offset"):
            for key, _ in it:
                seen.append(key)
        assert seen == [b"%04d" % i for i in (range(10, 5, -1) if reverse else range(5))]
        assert next(it, None) is None, "the error ended the iteration"
        it.seek(b"0004" if reverse else b"0006")
        assert next(it)[0] == (b"0004" if reverse else b"0006")
        assert len(list(db.keys())) == 300, "keys alone read no value"

"""Key-only and lazy-value iteration: Reader.keys yields keys without reading values,
Reader.entries yields entries whose value() reads on demand; both take a range or a
prefix, run in reverse, work on snapshots, and raise ClosedError after close."""

import pytest

import twaindb

KEYS = [b"a", b"ab", b"abc", b"b", b"ba", b"c"]


@pytest.fixture
def filled(path):
    """A database whose values are separated (larger than the inline threshold)."""
    with twaindb.Db(path, memtable_size="64K", inline_threshold=16) as db:
        for k in KEYS:
            db.put(k, k * 100)
        db.flush()
        db.put(b"m", b"small")
        yield db


def test_keys_yield_every_key_and_read_no_value(filled):
    before = filled.stats()["value_reads"]
    assert list(filled.keys()) == KEYS + [b"m"]
    assert list(filled.keys(reverse=True)) == (KEYS + [b"m"])[::-1]
    assert list(filled.keys(b"ab", b"ba")) == [b"ab", b"abc", b"b"]
    assert list(filled.keys(prefix=b"a")) == [b"a", b"ab", b"abc"]
    assert filled.stats()["value_reads"] == before


def test_entries_read_values_when_asked(filled):
    before = filled.stats()["value_reads"]
    entries = list(filled.entries(prefix=b"a"))
    assert [e.key for e in entries] == [b"a", b"ab", b"abc"]
    assert filled.stats()["value_reads"] == before
    assert entries[1].value() == b"ab" * 100
    assert filled.stats()["value_reads"] == before + 1
    assert [e.key for e in filled.entries(end=b"b", reverse=True)] == [b"abc", b"ab", b"a"]


def test_prefix_and_range_together_are_refused(filled):
    with pytest.raises(ValueError):
        filled.keys(b"a", prefix=b"a")


def test_snapshot_keys_and_entries_see_the_snapshot(filled):
    with filled.snapshot() as snap:
        filled.put(b"new", b"x")
        filled.delete(b"a")
        assert b"new" not in list(snap.keys())
        (entry,) = [e for e in snap.entries() if e.key == b"a"]
        assert entry.value() == b"a" * 100


def test_entries_and_keys_raise_closed_error_after_close(path):
    db = twaindb.Db(path, inline_threshold=16)
    db.put(b"k", b"v" * 100)
    entry = next(db.entries())
    keys = db.keys()
    db.close()
    with pytest.raises(twaindb.ClosedError):
        entry.value()
    with pytest.raises(twaindb.ClosedError):
        next(keys)
    # The closed database's lock was released with the entry: it opens again.
    with twaindb.Db(path) as again:
        assert list(again.keys()) == [b"k"]

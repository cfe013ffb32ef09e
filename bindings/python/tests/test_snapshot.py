"""Snapshots: isolation from later writes, and their lifetime."""

import pytest

import twaindb

from conftest import keys


@pytest.fixture
def db_and_snapshot(db):
    """A database with a, b, c, a snapshot of it, and then changes the snapshot must not
    see."""
    for k in [b"a", b"b", b"c"]:
        db.put(k, b"old-" + k)
    snap = db.snapshot()
    db.put(b"a", b"new-a")
    db.delete(b"b")
    db.put(b"d", b"new-d")
    yield db, snap
    snap.close()


def test_snapshot_get_sees_the_old_values(db_and_snapshot):
    db, snap = db_and_snapshot
    assert snap.get(b"a") == b"old-a"
    assert snap.get(b"b") == b"old-b"
    assert snap.get(b"d") is None
    assert db.get(b"a") == b"new-a" and db.get(b"b") is None


def test_snapshot_iterators_see_the_old_state_both_ways(db_and_snapshot):
    db, snap = db_and_snapshot
    old = [(b"a", b"old-a"), (b"b", b"old-b"), (b"c", b"old-c")]
    assert list(snap.iter()) == old
    assert list(snap.iter(reverse=True)) == old[::-1]
    assert list(snap.range(b"b", None)) == old[1:]
    assert list(snap.range(None, b"c", reverse=True)) == old[1::-1]
    assert list(snap.prefix(b"a")) == old[:1]
    assert keys(db.iter()) == [b"a", b"c", b"d"]


def test_a_snapshot_survives_flush_and_compaction(db_and_snapshot):
    db, snap = db_and_snapshot
    db.flush()
    db.compact_range()
    assert snap.get(b"b") == b"old-b"
    assert keys(snap.iter()) == [b"a", b"b", b"c"]


def test_a_snapshot_is_a_reader():
    assert issubclass(twaindb.Snapshot, twaindb.Reader)
    assert issubclass(twaindb.Db, twaindb.Reader)


def test_a_closed_snapshot_raises(db):
    with db.snapshot() as snap:
        assert not snap.closed
    assert snap.closed
    with pytest.raises(twaindb.ClosedError, match="snapshot is closed"):
        snap.get(b"a")
    with pytest.raises(twaindb.ClosedError):
        snap.iter()
    snap.close()  # idempotent


def test_an_iterator_outlives_its_snapshot(db):
    db.put(b"a", b"1")
    snap = db.snapshot()
    it = snap.iter()
    db.put(b"a", b"2")
    snap.close()
    assert list(it) == [(b"a", b"1")]


def test_the_with_block_closes_the_snapshot_even_on_error(db):
    with pytest.raises(KeyError), db.snapshot() as snap:
        raise KeyError("boom")
    assert snap.closed

"""Db.delete_range and WriteBatch.delete_range: deleting every key of a range at once."""

import pytest

import twaindb


def fill(db, n=50):
    for i in range(n):
        db.put(b"k%03d" % i, bytes([i]) * (10 if i % 2 else 300))


def test_the_keys_of_the_range_are_gone_and_the_rest_stay(db):
    fill(db)
    before = db.snapshot()
    db.delete_range(b"k010", bytearray(b"k040"))
    want = [b"k%03d" % i for i in range(50) if not 10 <= i < 40]
    assert list(db.keys()) == want
    assert db.get(b"k020") is None
    assert b"k040" in db and b"k039" not in db
    # A snapshot taken before still sees them, through a flush and a compaction.
    db.flush()
    db.compact_range()
    assert list(db.keys()) == want
    assert len(list(before.keys())) == 50
    before.close()


def test_a_batch_deletes_a_range_between_its_other_operations(db):
    fill(db, 10)
    with db.write_batch(sync=True) as batch:
        batch.put(b"k005", b"gone")
        batch.delete_range(b"k000", memoryview(b"k008"))
        batch.put(b"k002", b"kept")
    assert list(db.items()) == [(b"k002", b"kept"), (b"k008", bytes([8]) * 300), (b"k009", bytes([9]) * 10)]


def test_a_range_deletion_survives_a_reopen(path):
    with twaindb.Db(path) as db:
        fill(db, 20)
        db.delete_range(b"k005", b"k015", sync=True)
    with twaindb.Db(path) as db:
        assert len(list(db.keys())) == 10
        assert db.get(b"k010") is None


def test_bad_bounds_raise_value_error_and_write_nothing(db):
    db.put(b"m", b"1")
    with pytest.raises(twaindb.InvalidArgumentError, match="start is after its end"):
        db.delete_range(b"z", b"a")
    with pytest.raises(ValueError):
        db.delete_range(b"a", b"x" * 70000)
    with pytest.raises(TypeError):
        db.delete_range("a", "b")
    db.delete_range(b"m", b"m")
    assert db.get(b"m") == b"1"

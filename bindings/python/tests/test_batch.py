"""WriteBatch: building one and writing it atomically."""

import pytest

import twain


def test_a_batch_counts_its_operations():
    batch = twain.WriteBatch()
    assert len(batch) == 0 and not batch
    batch.put(b"a", b"1")
    batch.put("b", "2")
    batch.delete(b"c")
    assert len(batch) == 3
    assert repr(batch) == "<twain.WriteBatch of 3 operations, 5 bytes>"
    batch.clear()
    assert len(batch) == 0


def test_write_applies_puts_and_deletes(db):
    db.put(b"gone", b"x")
    batch = twain.WriteBatch()
    batch.put(b"a", b"1")
    batch.put(b"b", b"2")
    batch.delete(b"gone")
    db.write(batch)
    assert list(db.iter()) == [(b"a", b"1"), (b"b", b"2")]


def test_a_later_operation_on_the_same_key_wins(db):
    batch = twain.WriteBatch()
    batch.put(b"k", b"first")
    batch.put(b"k", b"second")
    batch.put(b"d", b"x")
    batch.delete(b"d")
    db.write(batch, sync=True)
    assert db.get(b"k") == b"second"
    assert db.get(b"d") is None


def test_writing_leaves_the_batch_as_it_was(db):
    batch = twain.WriteBatch()
    batch.put(b"k", b"v")
    db.write(batch)
    assert len(batch) == 1
    db.delete(b"k")
    db.write(batch)
    assert db.get(b"k") == b"v"


def test_an_empty_batch_writes_nothing(db):
    db.write(twain.WriteBatch())
    assert list(db.iter()) == []


def test_a_batch_is_all_or_nothing(db):
    batch = twain.WriteBatch()
    batch.put(b"ok", b"v")
    batch.put(b"k" * 70_000, b"too long a key")
    with pytest.raises(twain.InvalidArgumentError):
        db.write(batch)
    assert db.get(b"ok") is None

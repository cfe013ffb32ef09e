"""WriteBatch: building one and writing it atomically."""

import pytest

import twaindb


def test_a_batch_counts_its_operations():
    batch = twaindb.WriteBatch()
    assert len(batch) == 0 and not batch
    batch.put(b"a", b"1")
    batch.put(bytearray(b"b"), memoryview(b"2"))
    batch.delete(b"c")
    assert len(batch) == 3
    assert repr(batch) == "<twaindb.WriteBatch of 3 operations, 5 bytes>"
    batch.clear()
    assert len(batch) == 0


def test_write_applies_puts_and_deletes(db):
    db.put(b"gone", b"x")
    batch = twaindb.WriteBatch()
    batch.put(b"a", b"1")
    batch.put(b"b", b"2")
    batch.delete(b"gone")
    db.write(batch)
    assert list(db.iter()) == [(b"a", b"1"), (b"b", b"2")]


def test_a_later_operation_on_the_same_key_wins(db):
    batch = twaindb.WriteBatch()
    batch.put(b"k", b"first")
    batch.put(b"k", b"second")
    batch.put(b"d", b"x")
    batch.delete(b"d")
    db.write(batch, sync=True)
    assert db.get(b"k") == b"second"
    assert db.get(b"d") is None


def test_writing_leaves_the_batch_as_it_was(db):
    batch = twaindb.WriteBatch()
    batch.put(b"k", b"v")
    db.write(batch)
    assert len(batch) == 1
    db.delete(b"k")
    db.write(batch)
    assert db.get(b"k") == b"v"


def test_an_empty_batch_writes_nothing(db):
    db.write(twaindb.WriteBatch())
    assert list(db.iter()) == []


def test_a_batch_is_all_or_nothing(db):
    batch = twaindb.WriteBatch()
    batch.put(b"ok", b"v")
    batch.put(b"k" * 70_000, b"too long a key")
    with pytest.raises(twaindb.InvalidArgumentError):
        db.write(batch)
    assert db.get(b"ok") is None


def test_a_with_block_writes_the_batch_when_it_ends(db):
    db.put(b"gone", b"x")
    with db.write_batch() as wb:
        wb.put(b"a", b"1")
        wb.delete(b"gone")
        assert db.get(b"a") is None  # nothing is written before the block ends
        assert db.get(b"gone") == b"x"
    assert list(db.items()) == [(b"a", b"1")]
    assert len(wb) == 0


def test_a_with_block_with_sync_writes_durably(path):
    db = twaindb.Db(path)
    with db.write_batch(sync=True) as wb:
        wb.put(b"k", b"v")
    before = db.stats()["synced_groups"]
    with db.write_batch(sync=True) as wb:
        wb.put(b"k2", b"v")
    assert db.stats()["synced_groups"] == before + 1
    with db.write_batch() as wb:
        wb.put(b"k3", b"v")
    assert db.stats()["synced_groups"] == before + 1
    db.close()
    with twaindb.Db(path) as again:
        assert list(again.keys()) == [b"k", b"k2", b"k3"]


def test_an_exception_in_the_block_discards_the_batch_and_propagates(db):
    db.put(b"kept", b"x")
    with pytest.raises(RuntimeError, match="boom"), db.write_batch() as wb:
        wb.put(b"a", b"1")
        wb.delete(b"kept")
        raise RuntimeError("boom")
    assert list(db.items()) == [(b"kept", b"x")]
    assert len(wb) == 0


def test_a_bound_batch_can_be_used_again_and_written_with_write(db):
    wb = db.write_batch()
    with wb:
        wb.put(b"a", b"1")
    with wb:
        wb.put(b"b", b"2")
    wb.put(b"c", b"3")
    db.write(wb)  # the old API works on it too, and leaves it as it was
    assert len(wb) == 1
    assert list(db.keys()) == [b"a", b"b", b"c"]


def test_a_batch_filled_before_the_block_is_written_by_it(db):
    wb = db.write_batch()
    wb.put(b"early", b"1")
    with wb:
        wb.put(b"late", b"2")
    assert list(db.keys()) == [b"early", b"late"]


def test_a_batch_of_no_database_is_not_a_context_manager(db):
    batch = twaindb.WriteBatch()
    with pytest.raises(TypeError, match="belongs to no database.*db.write_batch"), batch:
        batch.put(b"a", b"1")
    assert db.get(b"a") is None


def test_a_failed_write_at_the_end_of_the_block_raises_and_writes_nothing(db):
    with pytest.raises(twaindb.InvalidArgumentError), db.write_batch() as wb:
        wb.put(b"ok", b"v")
        wb.put(b"k" * 70_000, b"too long a key")
    assert db.get(b"ok") is None
    assert len(wb) == 0


def test_a_with_block_ending_after_close_raises_closed_error(path):
    db = twaindb.Db(path)
    with pytest.raises(twaindb.ClosedError, match="database is closed"), db.write_batch() as wb:
        wb.put(b"a", b"1")
        db.close()
    with twaindb.Db(path) as again:
        assert again.get(b"a") is None

"""multi_get: the values of many keys at one view, in order, None where a key has none;
through the database and through a snapshot; bytes-like keys, str refused."""

import pytest

import twaindb


def test_values_come_back_in_the_order_asked(db):
    db.put(b"a", b"1")
    db.put(b"c", b"3" * 500)  # separated
    db.flush()
    db.put(b"d", b"4")  # in the memtable
    assert db.multi_get([b"d", b"a", b"b", b"c", b"a"]) == [b"4", b"1", None, b"3" * 500, b"1"]
    assert db.multi_get([]) == []
    assert db.multi_get(iter([bytearray(b"a"), memoryview(b"c")])) == [b"1", b"3" * 500]


def test_a_snapshot_reads_at_its_view(db):
    db.put(b"k", b"old")
    with db.snapshot() as snap:
        db.put(b"k", b"new")
        db.delete(b"gone")
        assert snap.multi_get([b"k"]) == [b"old"]
        assert db.multi_get([b"k"]) == [b"new"]


def test_str_keys_are_refused(db):
    with pytest.raises(TypeError, match="not a str"):
        db.multi_get("ab")
    with pytest.raises(TypeError):
        db.multi_get([b"a", "b"])


def test_a_closed_database_refuses(path):
    db = twaindb.Db(path)
    db.close()
    with pytest.raises(twaindb.ClosedError):
        db.multi_get([b"a"])

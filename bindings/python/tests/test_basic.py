"""Point operations: put, get, delete, and what keys and values may be."""

import pytest

import twaindb


def test_put_then_get_returns_the_value(db):
    db.put(b"apple", b"red")
    assert db.get(b"apple") == b"red"


def test_get_of_a_missing_key_is_none(db):
    assert db.get(b"missing") is None


def test_put_overwrites(db):
    db.put(b"k", b"one")
    db.put(b"k", b"two")
    assert db.get(b"k") == b"two"


def test_delete_removes_the_key_and_a_missing_key_is_fine(db):
    db.put(b"k", b"v")
    db.delete(b"k")
    assert db.get(b"k") is None
    db.delete(b"never-there")
    assert db.get(b"never-there") is None


def test_results_are_bytes(db):
    db.put(bytearray(b"k"), memoryview(b"v"))
    value = db.get(b"k")
    assert type(value) is bytes
    db.put(b"k2", b"v")
    ((key, value),) = list(db.prefix(b"k2"))
    assert type(key) is bytes and type(value) is bytes


def test_empty_and_binary_keys_and_values(db):
    db.put(b"", b"")
    db.put(b"\x00\xff\x00", bytes(range(256)))
    assert db.get(b"") == b""
    assert db.get(b"\x00\xff\x00") == bytes(range(256))


def test_large_values_go_through_the_value_log(db):
    big = bytes(range(256)) * 4096  # 1 MiB, far above inline_threshold
    db.put(b"big", big)
    db.flush()
    assert db.get(b"big") == big


def test_sync_writes(db):
    db.put(b"a", b"1", sync=True)
    db.delete(b"a", sync=True)
    db.put(b"b", b"2", True)
    db.sync()
    assert db.get(b"a") is None
    assert db.get(b"b") == b"2"


@pytest.mark.parametrize("bad", [1, 1.5, None, ["a"], [97]])
def test_other_key_types_are_a_type_error(db, bad):
    with pytest.raises(TypeError, match="expected a bytes-like object"):
        db.put(bad, b"v")
    with pytest.raises(TypeError, match="expected a bytes-like object"):
        db.get(bad)


def test_a_key_over_the_limit_is_an_invalid_argument(db):
    with pytest.raises(twaindb.InvalidArgumentError, match="invalid argument"):
        db.put(b"k" * 70_000, b"v")
    with pytest.raises(ValueError):
        db.put(b"k" * 70_000, b"v")


def test_path_and_repr(db, path):
    assert db.path == path
    assert repr(db) == f'<twaindb.Db "{path}" open>'
    db.close()
    assert repr(db).endswith(" closed>")

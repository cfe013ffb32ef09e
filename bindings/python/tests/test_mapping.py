"""The mapping protocol: db[k], k in db, db[k] = v, del db[k], iter(db), keys(), values(),
items() and get(k, default) on a database, and the reads of it on a snapshot. No len()."""

import pytest

import twaindb

PAIRS = [(b"a", b"1"), (b"b", b""), (b"c", b"3" * 1000), (b"\xff", b"4")]


@pytest.fixture(params=["memtable", "tables"])
def filled(request, path):
    """A database holding PAIRS (one value separated), in the memtable or in tables."""
    with twaindb.Db(path, memtable_size="64K", inline_threshold=16) as db:
        for k, v in PAIRS:
            db[k] = v
        if request.param == "tables":
            db.flush()
        yield db


def test_getitem_returns_the_value(filled):
    for k, v in PAIRS:
        assert filled[k] == v
        assert type(filled[k]) is bytes


def test_getitem_of_a_missing_key_raises_key_error_with_the_key(filled):
    with pytest.raises(KeyError) as err:
        filled[b"missing"]
    assert err.value.args == (b"missing",)
    key = bytearray(b"absent")
    with pytest.raises(KeyError) as err:
        filled[key]
    assert err.value.args[0] is key


def test_contains(filled):
    assert all(k in filled for k, _ in PAIRS)
    assert b"b" in filled  # an empty value is still a value
    assert b"missing" not in filled
    assert b"" not in filled


def test_setitem_and_delitem(filled):
    filled[b"new"] = b"value"
    assert filled.get(b"new") == b"value"
    filled[b"a"] = b"overwritten"
    assert filled[b"a"] == b"overwritten"
    del filled[b"new"]
    assert b"new" not in filled
    with pytest.raises(KeyError):
        filled[b"new"]


def test_del_of_a_missing_key_is_no_error(filled):
    """Unlike a dict: deleting is blind (knowing would cost a read), as delete() is."""
    del filled[b"never-there"]
    assert dict(filled.items()) == dict(PAIRS)


def test_get_with_a_default(filled):
    assert filled.get(b"a") == b"1"
    assert filled.get(b"missing") is None
    assert filled.get(b"missing", b"fallback") == b"fallback"
    sentinel = object()
    assert filled.get(b"missing", sentinel) is sentinel
    assert filled.get(b"missing", default=0) == 0
    assert filled.get(b"b", b"fallback") == b""


def test_keys_values_items_and_iter_are_iterators_in_key_order(filled):
    keys, values = [k for k, _ in PAIRS], [v for _, v in PAIRS]
    assert list(filled.keys()) == keys
    assert list(filled.values()) == values
    assert list(filled.items()) == PAIRS
    assert list(filled) == keys
    for it in (filled.keys(), filled.values(), filled.items(), iter(filled)):
        assert iter(it) is it
    assert isinstance(iter(filled), twaindb.KeyIterator)
    assert isinstance(filled.values(), twaindb.ValueIterator)
    assert isinstance(filled.items(), twaindb.ItemIterator)


def test_keys_values_items_take_a_range_a_prefix_and_reverse(filled):
    assert list(filled.items(b"b", b"\xff")) == PAIRS[1:3]
    assert list(filled.values(b"b", reverse=True)) == [b"4", b"3" * 1000, b""]
    assert list(filled.items(prefix=b"c")) == [PAIRS[2]]
    assert list(filled.keys(end=b"c", reverse=True)) == [b"b", b"a"]
    with pytest.raises(ValueError, match="a prefix or a range"):
        filled.values(b"a", prefix=b"a")


def test_dict_of_a_database_copies_it(filled):
    assert dict(filled) == dict(PAIRS)  # keys() and [] make a mapping for dict()
    assert dict(filled.items()) == dict(PAIRS)


def test_len_is_not_defined(filled):
    """The engine keeps no exact count of keys (stats()' estimate is one), and counting is
    a scan of every table: len() would be O(n) and bool(db) with it."""
    with pytest.raises(TypeError, match="has no len"):
        len(filled)
    assert not hasattr(filled, "__len__")
    assert bool(filled)
    assert sum(1 for _ in filled) == len(PAIRS)  # the count, by a scan


def test_a_snapshot_is_a_read_only_mapping_of_its_moment(filled):
    with filled.snapshot() as snap:
        filled[b"a"] = b"later"
        del filled[b"b"]
        assert snap[b"a"] == b"1"
        assert b"b" in snap
        assert snap.get(b"zzz", b"none") == b"none"
        assert list(snap) == [k for k, _ in PAIRS]
        assert list(snap.values()) == [v for _, v in PAIRS]
        assert list(snap.items()) == PAIRS
        with pytest.raises(TypeError):
            snap[b"a"] = b"x"
        with pytest.raises(TypeError):
            del snap[b"a"]
        with pytest.raises(KeyError):
            snap[b"new"]


def test_an_iterator_of_the_mapping_sees_the_database_as_it_was_when_made(filled):
    keys = iter(filled)
    filled[b"aa"] = b"later"
    assert list(keys) == [k for k, _ in PAIRS]
    assert list(filled) == [b"a", b"aa", b"b", b"c", b"\xff"]

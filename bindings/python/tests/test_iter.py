"""Iterators: everything, ranges and prefixes, forwards and backwards, over memtables and
table files."""

import pytest

import twaindb

from conftest import keys

KEYS = [b"a", b"ab", b"abc", b"b", b"ba", b"c", b"\xff", b"\xff\xff"]


@pytest.fixture(params=["memtable", "tables"])
def filled(request, db):
    """`db` holding KEYS (value: key upper-cased), in the memtable or in table files."""
    for k in KEYS:
        db.put(k, k.upper())
    if request.param == "tables":
        db.flush()
    return db


def test_iter_yields_every_pair_in_order(filled):
    assert list(filled.iter()) == [(k, k.upper()) for k in KEYS]


def test_iter_reverse_yields_them_backwards(filled):
    assert list(filled.iter(reverse=True)) == [(k, k.upper()) for k in reversed(KEYS)]


@pytest.mark.parametrize(
    "start, end, expected",
    [
        (None, None, KEYS),
        (b"ab", None, KEYS[1:]),
        (None, b"b", [b"a", b"ab", b"abc"]),
        (b"ab", b"ba", [b"ab", b"abc", b"b"]),
        (b"aa", b"bb", [b"ab", b"abc", b"b", b"ba"]),
        (b"b", b"b", []),
        (b"c", b"a", []),
        (b"\xff", None, [b"\xff", b"\xff\xff"]),
        (bytearray(b"a"), memoryview(b"b"), [b"a", b"ab", b"abc"]),
    ],
)
def test_range_start_is_inclusive_and_end_exclusive(filled, start, end, expected):
    assert keys(filled.range(start, end)) == expected
    assert keys(filled.range(start, end, reverse=True)) == expected[::-1]


def test_range_by_keyword(filled):
    assert keys(filled.range(end=b"ab")) == [b"a"]
    assert keys(filled.range(start=b"c")) == [b"c", b"\xff", b"\xff\xff"]
    assert keys(filled.range(reverse=True)) == KEYS[::-1]


@pytest.mark.parametrize(
    "prefix, expected",
    [
        (b"a", [b"a", b"ab", b"abc"]),
        (b"ab", [b"ab", b"abc"]),
        (b"b", [b"b", b"ba"]),
        (b"\xff", [b"\xff", b"\xff\xff"]),
        (b"", KEYS),
        (b"zz", []),
        (bytearray(b"a"), [b"a", b"ab", b"abc"]),
    ],
)
def test_prefix_both_directions(filled, prefix, expected):
    assert keys(filled.prefix(prefix)) == expected
    assert keys(filled.prefix(prefix, reverse=True)) == expected[::-1]


def test_deleted_and_overwritten_keys(filled):
    filled.delete(b"ab")
    filled.put(b"b", b"new")
    assert keys(filled.iter()) == [k for k in KEYS if k != b"ab"]
    assert dict(filled.iter())[b"b"] == b"new"
    assert dict(filled.iter(reverse=True))[b"b"] == b"new"


def test_an_iterator_sees_the_database_as_it_was_when_made(filled):
    forward, backward = filled.iter(), filled.iter(reverse=True)
    filled.put(b"aa", b"later")
    filled.delete(b"c")
    filled.flush()
    assert keys(forward) == KEYS
    assert keys(backward) == KEYS[::-1]


def test_an_exhausted_iterator_stays_exhausted(filled):
    it = filled.prefix(b"c")
    assert iter(it) is it
    assert next(it) == (b"c", b"C")
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(it)


def test_an_empty_database_yields_nothing(db):
    assert list(db.iter()) == []
    assert list(db.iter(reverse=True)) == []
    assert list(db.prefix(b"a")) == []


def test_many_keys_across_memtables_and_levels(db):
    # 64 KiB memtables: these span several table files, then are compacted.
    expected = [(b"key%05d" % i, b"v" * (i % 300)) for i in range(5000)]
    for k, v in expected:
        db.put(k, v)
    assert list(db.iter()) == expected
    db.compact_range()
    assert list(db.iter(reverse=True)) == expected[::-1]
    assert list(db.range(b"key01000", b"key01010")) == expected[1000:1010]


def test_a_bound_of_the_wrong_type_is_a_type_error(db):
    with pytest.raises(TypeError):
        db.range(1)
    with pytest.raises(TypeError):
        db.prefix(None)
    assert isinstance(db.iter(), twaindb.ItemIterator)

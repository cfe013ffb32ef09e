"""What a key, value, bound or prefix may be: any bytes-like object (bytes, bytearray,
memoryview, array.array, ... when C-contiguous), taken through the buffer protocol. A str is
refused with a TypeError that says to encode it, by every method that takes one; so is a
buffer that is not C-contiguous."""

import array

import pytest

import twaindb

BYTES_LIKE = {
    "bytes": lambda b: b,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "memoryview of bytearray": lambda b: memoryview(bytearray(b)),
    "memoryview slice": lambda b: memoryview(b"<" + b + b">")[1:-1],
    "array of bytes": lambda b: array.array("B", b),
}


@pytest.mark.parametrize("kind", sorted(BYTES_LIKE))
def test_every_bytes_like_kind_works_as_key_value_bound_and_prefix(db, kind):
    as_ = BYTES_LIKE[kind]
    db.put(as_(b"apple"), as_(b"red"))
    db[as_(b"banana")] = as_(b"yellow")
    batch = twaindb.WriteBatch()
    batch.put(as_(b"cherry"), as_(b"dark red"))
    batch.delete(as_(b"date"))
    db.write(batch)
    with db.write_batch() as wb:
        wb.put(as_(b"elder"), as_(b"black"))
    assert db.get(as_(b"apple")) == b"red"
    assert db[as_(b"banana")] == b"yellow"
    assert as_(b"cherry") in db
    assert list(db.keys(as_(b"b"), as_(b"d"))) == [b"banana", b"cherry"]
    assert list(db.range(as_(b"c"))) == [(b"cherry", b"dark red"), (b"elder", b"black")]
    assert list(db.prefix(as_(b"ap"))) == [(b"apple", b"red")]
    assert list(db.values(prefix=as_(b"e"))) == [b"black"]
    it = db.keys()
    it.seek(as_(b"c"))
    assert next(it) == b"cherry"
    db.compact_range(as_(b"a"), as_(b"z"))
    db.delete(as_(b"apple"))
    del db[as_(b"banana")]
    assert list(db.keys()) == [b"cherry", b"elder"]


def test_an_array_of_wider_items_is_taken_as_its_bytes(db):
    key = array.array("H", [1, 2])
    db.put(key, b"v")
    assert list(db.keys()) == [key.tobytes()]


def test_a_bytearray_changed_after_the_call_does_not_change_what_was_stored(db):
    key, value = bytearray(b"k"), bytearray(b"before")
    db.put(key, value)
    value[:] = b"after!"
    key[:] = b"x"
    assert db.get(b"k") == b"before"
    assert db.get(b"x") is None


@pytest.mark.parametrize(
    "buffer",
    [memoryview(b"abcdef")[::2], memoryview(b"abcdef")[::-1]],
    ids=["strided", "reversed"],
)
def test_a_non_contiguous_buffer_is_a_type_error(db, buffer):
    with pytest.raises(TypeError, match="non-contiguous.*bytes\\(\\)"):
        db.put(buffer, b"v")
    with pytest.raises(TypeError, match="non-contiguous"):
        db.put(b"k", buffer)
    assert list(db.keys()) == []


def test_a_contiguous_multi_dimensional_buffer_is_taken_in_c_order(db):
    grid = memoryview(bytearray(b"abcdef")).cast("B", (2, 3))
    db.put(grid, b"v")
    assert list(db.keys()) == [b"abcdef"]


def test_a_released_memoryview_is_refused(db):
    view = memoryview(b"k")
    view.release()
    with pytest.raises(ValueError, match="released"):
        db.put(view, b"v")


def test_a_str_is_refused_with_a_hint_to_encode(db):
    with pytest.raises(TypeError, match=r"got str: .*encode it first \(e\.g\. s\.encode\(\)\)"):
        db.put("key", b"v")
    with pytest.raises(TypeError, match="argument 'value': .*got str"):
        db.put(b"key", "v")
    assert list(db.keys()) == []


def every_call_taking_a_key():
    """Every call that takes a key, value, bound or prefix, given `s` (a str) for it."""
    return {
        "get": lambda db, s: db.get(s),
        "get default": lambda db, s: db.get(s, b"default"),
        "[]": lambda db, s: db[s],
        "in": lambda db, s: s in db,
        "[]=": lambda db, s: db.__setitem__(s, b"v"),
        "[]= value": lambda db, s: db.__setitem__(b"k", s),
        "del": lambda db, s: db.__delitem__(s),
        "put key": lambda db, s: db.put(s, b"v"),
        "put value": lambda db, s: db.put(b"k", s),
        "delete": lambda db, s: db.delete(s),
        "range start": lambda db, s: db.range(s),
        "range end": lambda db, s: db.range(None, s),
        "prefix": lambda db, s: db.prefix(s),
        "items": lambda db, s: db.items(s),
        "items prefix": lambda db, s: db.items(prefix=s),
        "keys": lambda db, s: db.keys(end=s),
        "keys prefix": lambda db, s: db.keys(prefix=s),
        "values": lambda db, s: db.values(s),
        "values prefix": lambda db, s: db.values(prefix=s),
        "entries": lambda db, s: db.entries(s),
        "entries prefix": lambda db, s: db.entries(prefix=s),
        "compact_range": lambda db, s: db.compact_range(s),
        "batch put key": lambda db, s: twaindb.WriteBatch().put(s, b"v"),
        "batch put value": lambda db, s: twaindb.WriteBatch().put(b"k", s),
        "batch delete": lambda db, s: twaindb.WriteBatch().delete(s),
        "bound batch put": lambda db, s: db.write_batch().put(s, b"v"),
        "seek items": lambda db, s: db.iter().seek(s),
        "seek keys": lambda db, s: db.keys().seek(s),
        "seek values": lambda db, s: db.values().seek(s),
        "seek entries": lambda db, s: db.entries().seek(s),
        "snapshot get": lambda db, s: db.snapshot().get(s),
        "snapshot []": lambda db, s: db.snapshot()[s],
        "snapshot in": lambda db, s: s in db.snapshot(),
        "snapshot keys": lambda db, s: db.snapshot().keys(prefix=s),
    }


@pytest.mark.parametrize("call", sorted(every_call_taking_a_key()))
@pytest.mark.parametrize("s", ["a", ""], ids=["str", "empty str"])
def test_every_call_refuses_a_str_the_same_way(db, call, s):
    db.put(b"a", b"1")
    with pytest.raises(TypeError, match="got str: keys and values are bytes, so encode it"):
        every_call_taking_a_key()[call](db, s)
    assert dict(db.items()) == {b"a": b"1"}


@pytest.mark.parametrize("call", sorted(every_call_taking_a_key()))
def test_the_same_calls_take_bytes(db, call):
    """The control of the test above: the TypeError comes from the str alone."""
    db.put(b"a", b"1")
    every_call_taking_a_key()[call](db, b"a")

"""Opening and closing: context managers, use after close, and what close releases."""

import gc

import pytest

import twaindb


def test_the_with_block_closes_the_database(path):
    with twaindb.Db(path) as db:
        assert not db.closed
        db.put(b"k", b"v")
    assert db.closed
    with twaindb.Db(path) as db:
        assert db.get(b"k") == b"v"


def test_the_with_block_closes_on_error_and_lets_it_propagate(path):
    with pytest.raises(KeyError), twaindb.Db(path) as db:
        raise KeyError("boom")
    assert db.closed


def test_every_exit_returns_none(path):
    """No __exit__ swallows an exception (so each is typed `-> None`)."""
    db = twaindb.Db(path)
    for obj in [db.snapshot(), db.iter(), db.keys(), db.values(), db.entries(), db.write_batch()]:
        with obj:
            pass
        assert obj.__exit__(None, None, None) is None
    assert db.__exit__(None, None, None) is None
    assert db.closed


def test_close_is_idempotent(path):
    db = twaindb.Db(path)
    db.close()
    db.close()
    assert db.closed


def use_after_close_calls():
    """Every call that needs the database, by name."""
    batch = twaindb.WriteBatch()
    batch.put(b"k", b"v")
    return {
        "get": lambda db: db.get(b"k"),
        "put": lambda db: db.put(b"k", b"v"),
        "delete": lambda db: db.delete(b"k"),
        "write": lambda db: db.write(batch),
        "sync": lambda db: db.sync(),
        "snapshot": lambda db: db.snapshot(),
        "iter": lambda db: db.iter(),
        "range": lambda db: db.range(b"a", b"b"),
        "prefix": lambda db: db.prefix(b"a"),
        "flush": lambda db: db.flush(),
        "compact_range": lambda db: db.compact_range(),
        "gc": lambda db: db.gc(),
        "stats": lambda db: db.stats(),
        "[]": lambda db: db[b"k"],
        "in": lambda db: b"k" in db,
        "[]=": lambda db: db.__setitem__(b"k", b"v"),
        "del": lambda db: db.__delitem__(b"k"),
        "iter(db)": lambda db: iter(db),
        "items": lambda db: db.items(),
        "keys": lambda db: db.keys(),
        "values": lambda db: db.values(),
        "entries": lambda db: db.entries(),
        "write_batch": write_in_a_with_block,
    }


def write_in_a_with_block(db):
    with db.write_batch() as wb:
        wb.put(b"k", b"v")


@pytest.mark.parametrize("name", sorted(use_after_close_calls()))
def test_use_after_close_raises_closed_error(path, name):
    db = twaindb.Db(path)
    db.close()
    with pytest.raises(twaindb.ClosedError, match="database is closed"):
        use_after_close_calls()[name](db)


def test_an_iterator_alive_at_close_raises_afterwards(path):
    db = twaindb.Db(path)
    for i in range(100):
        db.put(b"%03d" % i, b"v")
    it = db.iter()
    assert next(it) == (b"000", b"v")
    db.close()
    with pytest.raises(twaindb.ClosedError):
        next(it)
    with pytest.raises(twaindb.ClosedError):
        next(it)


def test_a_snapshot_alive_at_close_raises_afterwards(path):
    db = twaindb.Db(path)
    snap = db.snapshot()
    it = snap.iter(reverse=True)
    db.close()
    assert snap.closed
    with pytest.raises(twaindb.ClosedError):
        snap.get(b"k")
    with pytest.raises(twaindb.ClosedError):
        next(it)


def test_close_releases_the_directory_even_with_iterators_and_snapshots_alive(path):
    db = twaindb.Db(path)
    db.put(b"k", b"v")
    it, snap = db.iter(), db.snapshot()
    snap_it = snap.prefix(b"k")
    db.close()
    with twaindb.Db(path) as again:
        assert again.get(b"k") == b"v"
    assert it is not None and snap_it is not None


def test_a_database_dropped_without_close_is_closed(path):
    db = twaindb.Db(path)
    db.put(b"k", b"v")
    it = db.iter()
    del db
    gc.collect()
    with twaindb.Db(path) as again:
        assert again.get(b"k") == b"v"
    with pytest.raises(twaindb.ClosedError):
        next(it)


def test_a_batch_from_write_batch_keeps_a_dropped_database_open_until_it_goes(path):
    db = twaindb.Db(path)
    batch = db.write_batch()
    del db
    gc.collect()
    with batch:
        batch.put(b"k", b"v")
    with pytest.raises(twaindb.LockedError):
        twaindb.Db(path)
    del batch
    gc.collect()
    with twaindb.Db(path) as again:
        assert again.get(b"k") == b"v"


def test_a_second_open_of_the_same_directory_is_locked(db, path):
    with pytest.raises(twaindb.LockedError, match="locked"):
        twaindb.Db(path)

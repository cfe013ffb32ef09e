"""Read options as keywords: fill_cache=False keeps the blocks a read loads out of the
block cache (each read of a cold block misses again), prefetch=False reads no value ahead of
an iterator; both on the database and on a snapshot, with the same results either way."""

import twaindb


def cache(db):
    s = db.stats()
    return s["block_cache_hits"], s["block_cache_misses"]


def test_get_without_filling_the_cache_misses_each_time(db):
    db.put(b"k1", b"one")
    db.put(b"k2", b"two")
    db.flush()
    _, misses = cache(db)
    for _ in range(20):
        assert db.get(b"k1", fill_cache=False) == b"one"
    assert cache(db)[1] >= misses + 20
    assert db.get(b"missing", b"dflt", fill_cache=False) == b"dflt"
    # The default fills it: then the reads hit.
    assert db.get(b"k1") == b"one"
    hits, misses = cache(db)
    for _ in range(20):
        assert db.get(b"k1") == b"one"
    after_hits, after_misses = cache(db)
    assert after_hits >= hits + 20
    assert after_misses < misses + 10


def test_iterators_take_the_options_and_yield_the_same(db):
    for i in range(300):
        db.put(b"key%04d" % i, (b"v%d" % i) * (1 + i % 90))
    db.flush()
    plain = list(db.items())
    for fill_cache in (True, False):
        for prefetch in (True, False):
            kw = {"fill_cache": fill_cache, "prefetch": prefetch}
            assert list(db.items(**kw)) == plain
            assert list(db.iter(**kw)) == plain
            assert list(db.range(b"key0100", b"key0200", **kw)) == plain[100:200]
            assert list(db.prefix(b"key01", reverse=True, **kw)) == plain[100:200][::-1]
            assert list(db.keys(**kw)) == [k for k, _ in plain]
            assert list(db.values(prefix=b"key02", **kw)) == [v for _, v in plain[200:300]]
            assert [(e.key, e.value()) for e in db.entries(**kw)] == plain
    # Fresh tables: a scan that does not fill the cache misses on each pass.
    for i in range(300):
        db.put(b"new%04d" % i, b"x" * 50)
    db.flush()
    _, misses = cache(db)
    for _ in range(3):
        assert len(list(db.items(prefix=b"new", fill_cache=False))) == 300
    assert cache(db)[1] >= misses + 3


def test_a_snapshot_takes_them_too(db):
    db.put(b"k", b"old")
    db.flush()
    with db.snapshot() as snap:
        db.put(b"k", b"new")
        assert snap.get(b"k", fill_cache=False) == b"old"
        assert list(snap.items(fill_cache=False, prefetch=False)) == [(b"k", b"old")]
    assert db.get(b"k", fill_cache=False) == b"new"


def test_they_are_keywords_only(db):
    import pytest

    with pytest.raises(TypeError):
        db.get(b"k", None, False)
    with pytest.raises(TypeError):
        db.items(None, None, False, None, False)
    assert isinstance(db, twaindb.Reader)


def test_prefetch_false_reads_nothing_ahead(path):
    # Prefetching however fast reads are, so that a scan over separated values does it.
    with twaindb.Db(path, memtable_size="64K", prefetch_min_read_micros=0) as db:
        for i in range(400):
            db.put(b"p%04d" % i, b"v" * 1000)  # separated
        db.flush()
        before = db.stats()["prefetch_reads"]
        assert len(list(db.values(prefetch=False))) == 400
        assert db.stats()["prefetch_reads"] == before
        assert list(db.values()) == [b"v" * 1000] * 400
        assert db.stats()["prefetch_reads"] > before

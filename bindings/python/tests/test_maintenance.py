"""flush, compact_range, gc, stats, and persistence across reopening."""

import twaindb


def test_flush_moves_the_memtable_to_a_table(db):
    db.put(b"k", b"v")
    assert sum(level["files"] for level in db.stats()["levels"]) == 0
    db.flush()
    stats = db.stats()
    assert stats["flushes"] >= 1
    assert sum(level["files"] for level in stats["levels"]) >= 1
    assert db.get(b"k") == b"v"


def test_compact_range_merges_the_tables_into_one_level(db):

    for i in range(2000):
        db.put(b"%05d" % i, b"x" * 100)
    db.flush()
    db.compact_range(b"00000", b"01999")
    db.compact_range(start=b"00500")
    db.compact_range(end=b"00100")
    db.compact_range()
    levels = db.stats()["levels"]
    assert levels[0]["files"] == 0
    assert [level["entries"] for level in levels if level["files"]] == [2000]

    assert db.get(b"01234") == b"x" * 100


def test_gc_collects_value_files_with_garbage(path):
    # Threshold 1.0: GC collects every sealed value file holding any garbage.
    options = {"value_file_size": "64K", "gc_enabled": False, "gc_threshold": 1.0}
    with twaindb.Db(path, **options) as db:
        for round_ in range(3):
            for i in range(200):
                db.put(b"%04d" % i, bytes([round_]) * 1000)
        db.compact_range()
        assert any(f["dropped_bytes"] for f in db.stats()["value_files"])
        collected = db.gc()
        assert isinstance(collected, int) and collected >= 1
        stats = db.stats()
        # A collected file is rewritten (gc_runs) or has its dead runs punched out.
        assert stats["gc_runs"] + stats["gc_punch_runs"] >= 1
        # A punched file keeps the dead records that share a block with live ones
        # (counted in dropped_bytes, punched_bytes the part freed); any other garbage
        # is gone.
        assert all(f["dropped_bytes"] == 0 or f["punched_bytes"] > 0 for f in stats["value_files"])
        assert all(db.get(b"%04d" % i) == b"\x02" * 1000 for i in range(200))
        assert db.gc() == 0


def test_stats_is_the_json_form_as_a_dict(db):
    db.put(b"k", b"v")
    stats = db.stats()
    assert isinstance(stats, dict)
    assert stats["user_ops"] == 1
    assert isinstance(stats["write_amplification"], float)
    assert {"levels", "value_files", "disk_total", "memtable_entries"} <= stats.keys()
    assert all(
        set(level) == {"files", "bytes", "entries", "target_bytes"} for level in stats["levels"]
    )
    # Dynamic level sizing (the default): a tree this small has the last level as its
    # base, and L0 and the last level never report a target, so no level has one.
    assert all(level["target_bytes"] == 0 for level in stats["levels"])


def test_static_level_sizing_targets_l1(path):
    with twaindb.Db(path, level_sizing="static") as db:
        db.put(b"k", b"v")
        levels = db.stats()["levels"]
    # L1 targets l1_target_size (256 MiB); L0 and the last level have none.
    assert levels[1]["target_bytes"] == 256 << 20
    assert levels[0]["target_bytes"] == 0 == levels[-1]["target_bytes"]


def test_data_persists_across_reopening(path):
    expected = {b"%04d" % i: b"v%d" % i * (i % 50) for i in range(1000)}
    with twaindb.Db(path, memtable_size="64K") as db:
        for k, v in expected.items():
            db.put(k, v)
        db.delete(b"0000")
        del expected[b"0000"]
    with twaindb.Db(path) as db:
        assert dict(db.iter()) == expected
        db.flush()
        db.compact_range()
    with twaindb.Db(path, create_if_missing=False) as db:
        assert dict(db.iter(reverse=True)) == expected

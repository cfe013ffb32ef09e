"""Engine options passed by name to Db(path, **options)."""

import pytest

import twaindb


def test_options_accept_strings_numbers_and_booleans(path):
    with twaindb.Db(
        path,
        memtable_size="8M",
        block_size=8192,
        gc_threshold=0.5,
        create_if_missing=True,
        gc_enabled="false",
        gc_mode="lsm-lookup",
    ) as db:
        db.put(b"k", b"v")
        assert db.get(b"k") == b"v"


def test_an_unknown_option_is_an_invalid_argument(path):
    with pytest.raises(twaindb.InvalidArgumentError, match='unknown option "no_such_option"'):
        twaindb.Db(path, no_such_option=1)
    assert not path.exists()


@pytest.mark.parametrize(
    "name, value",
    [("memtable_size", "lots"), ("create_if_missing", "maybe"), ("num_levels", -1)],
)
def test_a_value_that_does_not_parse_is_an_invalid_argument(path, name, value):
    with pytest.raises(ValueError, match=f"option {name}"):
        twaindb.Db(path, **{name: value})


def test_options_that_do_not_fit_together_are_refused(path):
    with pytest.raises(twaindb.InvalidArgumentError, match="memtable_size"):
        twaindb.Db(path, memtable_size=100)


def test_without_create_if_missing_a_missing_database_is_not_found(path):
    with pytest.raises(twaindb.NotFoundError, match="no database"):
        twaindb.Db(path, create_if_missing=False)
    with pytest.raises(FileNotFoundError):
        twaindb.Db(path, create_if_missing=False)


def test_error_if_exists(path):
    twaindb.Db(path).close()
    with pytest.raises(twaindb.AlreadyExistsError):
        twaindb.Db(path, error_if_exists=True)
    with pytest.raises(FileExistsError):
        twaindb.Db(path, error_if_exists=True)


def test_the_path_may_be_a_str(path):
    with twaindb.Db(str(path)) as db:
        assert db.path == path


def test_a_vlog_mode_database_refuses_the_modes_that_trust_drop_records(path):
    with twaindb.Db(path, gc_mode="vlog") as db:
        db.put(b"k", b"v" * 300)
    with pytest.raises(twaindb.InvalidArgumentError, match="ran with gc_mode=vlog"):
        twaindb.Db(path, gc_mode="drop-records")
    with twaindb.Db(path, gc_mode="vlog") as db:
        assert db.get(b"k") == b"v" * 300


def test_compression_and_the_info_log_are_options(path):
    with twaindb.Db(
        path, compression="zstd", compression_per_level="none,lz4", info_log=True
    ) as db:
        for i in range(2000):
            db.put(b"key%05d" % i, b"alpha bravo charlie " * 5)
        db.flush()
        db.compact_range()
        assert db.get(b"key01234") == b"alpha bravo charlie " * 5
    assert (path / "LOG").read_text().count(" INFO  ") >= 2
    with pytest.raises(ValueError, match="option compression"):
        twaindb.Db(path, compression="snappy")


def test_separated_values_compress_per_class(path):
    value = b"".join(b"u%05d:ok;" % (j * 7919 % 100000) for j in range(130))
    with twaindb.Db(
        path,
        value_compression="lz4",
        medium_value_compression="zstd",
        medium_threshold=64,
        inline_threshold=1024,
    ) as db:
        for i in range(500):
            db.put(b"key%05d" % i, value)
            db.put(b"mid%05d" % i, value[:500])
        db.flush()
        assert db.get(b"key00042") == value
        assert db.get(b"mid00042") == value[:500]
        db.compact_range()
        assert db.get(b"mid00499") == value[:500]
        assert [k for k, _ in db.items()][:2] == [b"key00000", b"key00001"]
    with twaindb.Db(path) as db:
        assert db.get(b"key00007") == value
        assert db.get(b"mid00007") == value[:500]
    with pytest.raises(ValueError, match="option value_compression"):
        twaindb.Db(path, value_compression="snappy")

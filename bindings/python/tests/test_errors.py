"""Engine errors arrive as Python exceptions of the right class with the engine's message."""

import pytest

import twaindb

SUBCLASSES = [
    twaindb.CorruptionError,
    twaindb.IoError,
    twaindb.InvalidArgumentError,
    twaindb.NotSupportedError,
    twaindb.ReadOnlyError,
    twaindb.LockedError,
    twaindb.NotFoundError,
    twaindb.AlreadyExistsError,
    twaindb.ClosedError,
]


def test_every_error_derives_from_twaindb_error():
    assert issubclass(twaindb.Error, Exception)
    for cls in SUBCLASSES:
        assert issubclass(cls, twaindb.Error), cls
        assert cls.__module__ == "twaindb" and cls.__doc__


def test_errors_also_derive_from_the_matching_builtin():
    assert issubclass(twaindb.IoError, OSError)
    assert issubclass(twaindb.InvalidArgumentError, ValueError)
    assert issubclass(twaindb.NotFoundError, FileNotFoundError)
    assert issubclass(twaindb.AlreadyExistsError, FileExistsError)
    assert not issubclass(twaindb.CorruptionError, OSError)


def test_garbage_in_current_is_corruption(path):
    twaindb.Db(path).close()
    (path / "CURRENT").write_bytes(b"\x00garbage\n")
    with pytest.raises(twaindb.CorruptionError, match="corruption in .*CURRENT"):
        twaindb.Db(path)


def test_a_damaged_value_is_corruption_never_data(path):
    value = b"precious value " * 100
    with twaindb.Db(path) as db:
        db.put(b"k", value, sync=True)
        db.flush()
    (vlog,) = [p for p in path.iterdir() if p.suffix == ".vlog"]
    data = bytearray(vlog.read_bytes())
    at = data.index(value)
    data[at + 50] ^= 0x40
    vlog.write_bytes(bytes(data))
    # Found when the database opens (recovery reads the last value file) or on the read.
    corrupt = pytest.raises(twaindb.CorruptionError, match=r"\.vlog at offset \d+")
    with corrupt, twaindb.Db(path) as db:
        db.get(b"k")


def test_an_os_failure_is_an_io_error(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_bytes(b"x")
    with pytest.raises(twaindb.IoError, match="I/O error") as err:
        twaindb.Db(not_a_dir / "db")
    assert isinstance(err.value, OSError)

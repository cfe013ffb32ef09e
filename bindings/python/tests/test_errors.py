"""Engine errors arrive as Python exceptions of the right class with the engine's message."""

import pytest

import twain

SUBCLASSES = [
    twain.CorruptionError,
    twain.IoError,
    twain.InvalidArgumentError,
    twain.NotSupportedError,
    twain.ReadOnlyError,
    twain.LockedError,
    twain.NotFoundError,
    twain.AlreadyExistsError,
    twain.ClosedError,
]


def test_every_error_derives_from_twain_error():
    assert issubclass(twain.Error, Exception)
    for cls in SUBCLASSES:
        assert issubclass(cls, twain.Error), cls
        assert cls.__module__ == "twain" and cls.__doc__


def test_errors_also_derive_from_the_matching_builtin():
    assert issubclass(twain.IoError, OSError)
    assert issubclass(twain.InvalidArgumentError, ValueError)
    assert issubclass(twain.NotFoundError, FileNotFoundError)
    assert issubclass(twain.AlreadyExistsError, FileExistsError)
    assert not issubclass(twain.CorruptionError, OSError)


def test_garbage_in_current_is_corruption(path):
    twain.Db(path).close()
    (path / "CURRENT").write_bytes(b"\x00garbage\n")
    with pytest.raises(twain.CorruptionError, match="corruption in .*CURRENT"):
        twain.Db(path)


def test_a_damaged_value_is_corruption_never_data(path):
    value = b"precious value " * 100
    with twain.Db(path) as db:
        db.put(b"k", value, sync=True)
        db.flush()
    (vlog,) = [p for p in path.iterdir() if p.suffix == ".vlog"]
    data = bytearray(vlog.read_bytes())
    at = data.index(value)
    data[at + 50] ^= 0x40
    vlog.write_bytes(bytes(data))
    # Found when the database opens (recovery reads the last value file) or on the read.
    with pytest.raises(twain.CorruptionError, match=r"\.vlog at offset \d+"), twain.Db(path) as db:
        db.get(b"k")


def test_an_os_failure_is_an_io_error(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_bytes(b"x")
    with pytest.raises(twain.IoError, match="I/O error") as err:
        twain.Db(not_a_dir / "db")
    assert isinstance(err.value, OSError)

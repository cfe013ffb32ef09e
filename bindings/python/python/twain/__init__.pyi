"""Types of the twain package. A test (tests/test_stubs.py) ties this file to the module."""

import os
import pathlib
from typing import Any, final

from typing_extensions import TypeAlias

# A key, value or prefix: bytes, or str (encoded as UTF-8).
_Bytes: TypeAlias = bytes | str
# An engine option's value, turned into the string the engine parses.
_OptionValue: TypeAlias = str | int | float | bool

__version__: str
__all__ = [
    "AlreadyExistsError",
    "ClosedError",
    "CorruptionError",
    "Db",
    "Entry",
    "EntryIterator",
    "Error",
    "InvalidArgumentError",
    "IoError",
    "Iterator",
    "KeyIterator",
    "LockedError",
    "NotFoundError",
    "NotSupportedError",
    "ReadOnlyError",
    "Reader",
    "Snapshot",
    "WriteBatch",
    "__version__",
]

class Reader:
    """The reads shared by Db and Snapshot."""

    def get(self, key: _Bytes) -> bytes | None: ...
    def iter(self, reverse: bool = False) -> Iterator: ...
    def range(
        self,
        start: _Bytes | None = None,
        end: _Bytes | None = None,
        reverse: bool = False,
    ) -> Iterator: ...
    def prefix(self, prefix: _Bytes, reverse: bool = False) -> Iterator: ...
    def keys(
        self,
        start: _Bytes | None = None,
        end: _Bytes | None = None,
        reverse: bool = False,
        prefix: _Bytes | None = None,
    ) -> KeyIterator: ...
    def entries(
        self,
        start: _Bytes | None = None,
        end: _Bytes | None = None,
        reverse: bool = False,
        prefix: _Bytes | None = None,
    ) -> EntryIterator: ...

@final
class Db(Reader):
    """An open database; thread-safe. Closed by close(), a with block, or when garbage."""

    def __new__(cls, path: str | os.PathLike[str], **options: _OptionValue) -> Db: ...
    def put(self, key: _Bytes, value: _Bytes, sync: bool = False) -> None: ...
    def delete(self, key: _Bytes, sync: bool = False) -> None: ...
    def write(self, batch: WriteBatch, sync: bool = False) -> None: ...
    def sync(self) -> None: ...
    def snapshot(self) -> Snapshot: ...
    def flush(self) -> None: ...
    def compact_range(self, start: _Bytes | None = None, end: _Bytes | None = None) -> None: ...
    def gc(self) -> int: ...
    def stats(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def path(self) -> pathlib.Path: ...
    def __enter__(self) -> Db: ...
    def __exit__(self, *exc: object) -> bool: ...

@final
class Snapshot(Reader):
    """A consistent read view; close it (or use a with block) when done."""

    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Snapshot: ...
    def __exit__(self, *exc: object) -> bool: ...

@final
class Iterator:
    """(key, value) pairs in key order, or in reverse; sees the database as it was when
    made. Raises ClosedError once the database is closed."""

    def __iter__(self) -> Iterator: ...
    def __next__(self) -> tuple[bytes, bytes]: ...

@final
class KeyIterator:
    """Keys in key order, or in reverse, without reading any value file; sees the
    database as it was when made. Raises ClosedError once the database is closed."""

    def __iter__(self) -> KeyIterator: ...
    def __next__(self) -> bytes: ...

@final
class EntryIterator:
    """Entries in key order, or in reverse, their values unread; sees the database as it
    was when made. Raises ClosedError once the database is closed."""

    def __iter__(self) -> EntryIterator: ...
    def __next__(self) -> Entry: ...

@final
class Entry:
    """A key, and its value read from disk when value() is called (each call reads).
    Raises ClosedError once the database is closed."""

    @property
    def key(self) -> bytes: ...
    def value(self) -> bytes: ...

@final
class WriteBatch:
    """Puts and deletes that Db.write applies atomically, in order."""

    def __new__(cls) -> WriteBatch: ...
    def put(self, key: _Bytes, value: _Bytes) -> None: ...
    def delete(self, key: _Bytes) -> None: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...

class Error(Exception):
    """Base class of every error reported by twain."""

class CorruptionError(Error):
    """Stored bytes failed a check; the message names the file and the offset."""

class IoError(Error, OSError):
    """An operating-system I/O call failed."""

class InvalidArgumentError(Error, ValueError):
    """An argument the engine does not accept: an unknown option, a key too large, ..."""

class NotSupportedError(Error):
    """The feature is not built yet."""

class ReadOnlyError(Error):
    """An earlier write or sync failed: the database refuses writes until reopened."""

class LockedError(Error):
    """Another process, or another Db in this one, has the database open."""

class NotFoundError(Error, FileNotFoundError):
    """No database at the path, and create_if_missing is off."""

class AlreadyExistsError(Error, FileExistsError):
    """A database exists at the path, and error_if_exists is on."""

class ClosedError(Error):
    """The database, snapshot or iterator was used after it was closed."""

"""Types of the twaindb package. A test (tests/test_stubs.py) ties this file to the module."""

import os
import pathlib
from collections.abc import Iterable
from typing import TypeVar, final, overload

from typing_extensions import Buffer, Self, TypeAlias

# The types of Db.stats(), defined once, in the module itself.
from ._stats import HashLayoutStats as HashLayoutStats
from ._stats import LevelStats as LevelStats
from ._stats import Stats as Stats
from ._stats import ValueFileStats as ValueFileStats

# A key, value, bound or prefix: any bytes-like object (bytes, bytearray, memoryview, a
# C-contiguous buffer). A str is refused at run time with a TypeError: encode it.
_BytesLike: TypeAlias = Buffer
# An engine option's value, turned into the string the engine parses.
_OptionValue: TypeAlias = str | int | float | bool
_T = TypeVar("_T")

__version__: str
__all__ = [
    "AlreadyExistsError",
    "ClosedError",
    "CorruptionError",
    "Db",
    "Entry",
    "EntryIterator",
    "Error",
    "HashLayoutStats",
    "InvalidArgumentError",
    "IoError",
    "ItemIterator",
    "KeyIterator",
    "LevelStats",
    "LockedError",
    "NotFoundError",
    "NotSupportedError",
    "ReadOnlyError",
    "Reader",
    "Snapshot",
    "Stats",
    "ValueFileStats",
    "ValueIterator",
    "WriteBatch",
    "__version__",
]

class Reader:
    """The reads shared by Db and Snapshot, mapping reads included. No len(): the engine
    keeps no exact count of keys, and counting is a scan of every table."""

    @overload
    def get(self, key: _BytesLike, default: _T, *, fill_cache: bool = True) -> bytes | _T: ...
    @overload
    def get(
        self, key: _BytesLike, default: None = None, *, fill_cache: bool = True
    ) -> bytes | None: ...
    def multi_get(self, keys: Iterable[_BytesLike]) -> list[bytes | None]: ...
    def __getitem__(self, key: _BytesLike, /) -> bytes: ...
    def __contains__(self, key: _BytesLike, /) -> bool: ...
    def __iter__(self) -> KeyIterator: ...
    def iter(
        self, reverse: bool = False, *, fill_cache: bool = True, prefetch: bool = True
    ) -> ItemIterator: ...
    def range(
        self,
        start: _BytesLike | None = None,
        end: _BytesLike | None = None,
        reverse: bool = False,
        *,
        fill_cache: bool = True,
        prefetch: bool = True,
    ) -> ItemIterator: ...
    def prefix(
        self,
        prefix: _BytesLike,
        reverse: bool = False,
        *,
        fill_cache: bool = True,
        prefetch: bool = True,
    ) -> ItemIterator: ...
    def items(
        self,
        start: _BytesLike | None = None,
        end: _BytesLike | None = None,
        reverse: bool = False,
        prefix: _BytesLike | None = None,
        *,
        fill_cache: bool = True,
        prefetch: bool = True,
    ) -> ItemIterator: ...
    def keys(
        self,
        start: _BytesLike | None = None,
        end: _BytesLike | None = None,
        reverse: bool = False,
        prefix: _BytesLike | None = None,
        *,
        fill_cache: bool = True,
        prefetch: bool = True,
    ) -> KeyIterator: ...
    def values(
        self,
        start: _BytesLike | None = None,
        end: _BytesLike | None = None,
        reverse: bool = False,
        prefix: _BytesLike | None = None,
        *,
        fill_cache: bool = True,
        prefetch: bool = True,
    ) -> ValueIterator: ...
    def entries(
        self,
        start: _BytesLike | None = None,
        end: _BytesLike | None = None,
        reverse: bool = False,
        prefix: _BytesLike | None = None,
        *,
        fill_cache: bool = True,
        prefetch: bool = True,
    ) -> EntryIterator: ...

@final
class Db(Reader):
    """An open database and a mapping of bytes to bytes; thread-safe. Closed by close(), a
    with block, or when garbage."""

    def __new__(cls, path: str | os.PathLike[str], **options: _OptionValue) -> Db: ...
    def put(
        self,
        key: _BytesLike,
        value: _BytesLike,
        sync: bool = False,
        expires_at: int | None = None,
    ) -> None: ...
    def expiry(self, key: _BytesLike) -> int | None: ...
    def now_millis(self) -> int: ...
    def delete(self, key: _BytesLike, sync: bool = False) -> None: ...
    def delete_range(self, start: _BytesLike, end: _BytesLike, sync: bool = False) -> None: ...
    def __setitem__(self, key: _BytesLike, value: _BytesLike, /) -> None: ...
    def __delitem__(self, key: _BytesLike, /) -> None: ...
    def write(self, batch: WriteBatch, sync: bool = False) -> None: ...
    def write_batch(self, sync: bool = False) -> WriteBatch: ...
    def sync(self) -> None: ...
    def snapshot(self) -> Snapshot: ...
    def flush(self) -> None: ...
    def compact_range(
        self, start: _BytesLike | None = None, end: _BytesLike | None = None
    ) -> None: ...
    def gc(self) -> int: ...
    def stats(self) -> Stats: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def path(self) -> pathlib.Path: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

@final
class Snapshot(Reader):
    """A consistent read view; close it (or use a with block) when done."""

    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

@final
class ItemIterator:
    """(key, value) pairs in key order, or in reverse; sees the database as it was when
    made. seek(key) moves it; raises ClosedError once it or the database is closed."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> tuple[bytes, bytes]: ...
    def seek(self, key: _BytesLike) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

@final
class KeyIterator:
    """Keys only, without reading any value file; otherwise like ItemIterator."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> bytes: ...
    def seek(self, key: _BytesLike) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

@final
class ValueIterator:
    """Values only, in the order of their keys; otherwise like ItemIterator."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> bytes: ...
    def seek(self, key: _BytesLike) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

@final
class EntryIterator:
    """Entries, their values unread until asked; otherwise like ItemIterator."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> Entry: ...
    def seek(self, key: _BytesLike) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

@final
class Entry:
    """A key, and its value read from disk when value() is called (each call reads).
    Raises ClosedError once the database is closed."""

    @property
    def key(self) -> bytes: ...
    def value(self) -> bytes: ...

@final
class WriteBatch:
    """Puts and deletes that Db.write applies atomically, in order. One from
    Db.write_batch() is a context manager: written when the with block ends normally,
    discarded when it ends by an exception."""

    def __new__(cls) -> WriteBatch: ...
    def put(
        self, key: _BytesLike, value: _BytesLike, expires_at: int | None = None
    ) -> None: ...
    def delete(self, key: _BytesLike) -> None: ...
    def delete_range(self, start: _BytesLike, end: _BytesLike) -> None: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

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

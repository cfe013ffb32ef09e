"""twaindb: twain, an embeddable, persistent, ordered key-value store (an LSM-tree with
key-value separation), from Python.

Keys and values are bytes-like (``bytes``, ``bytearray``, ``memoryview``, any C-contiguous
buffer); a ``str`` is refused with a ``TypeError``: encode it. Reads return ``bytes``. See
README.md beside this package's sources, and ``__init__.pyi`` for types.
"""

from ._stats import HashLayoutStats, LevelStats, Stats, ValueFileStats
from ._twaindb import (
    AlreadyExistsError,
    ClosedError,
    CorruptionError,
    Db,
    Entry,
    EntryIterator,
    Error,
    InvalidArgumentError,
    IoError,
    ItemIterator,
    KeyIterator,
    LockedError,
    NotFoundError,
    NotSupportedError,
    Reader,
    ReadOnlyError,
    Snapshot,
    ValueIterator,
    WriteBatch,
    __version__,
)

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

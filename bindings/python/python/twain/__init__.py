"""twain: an embeddable, persistent, ordered key-value store (an LSM-tree with key-value
separation), from Python.

Keys and values are ``bytes``; a ``str`` argument is encoded as UTF-8. Reads return
``bytes``. See README.md beside this package's sources, and ``__init__.pyi`` for types.
"""

from ._twain import (
    AlreadyExistsError,
    ClosedError,
    CorruptionError,
    Db,
    Entry,
    EntryIterator,
    Error,
    InvalidArgumentError,
    IoError,
    Iterator,
    KeyIterator,
    LockedError,
    NotFoundError,
    NotSupportedError,
    Reader,
    ReadOnlyError,
    Snapshot,
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

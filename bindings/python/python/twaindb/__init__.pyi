"""Types of the twaindb package. A test (tests/test_stubs.py) ties this file to the module."""

import os
import pathlib
from collections.abc import Iterable
from typing import TypedDict, TypeVar, final, overload

from typing_extensions import Buffer, Self, TypeAlias

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
    def clear(self) -> None: ...
    def __len__(self) -> int: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

class LevelStats(TypedDict):
    """One LSM level: its table files, their bytes on disk, and the entries they hold."""

    files: int
    bytes: int
    entries: int

class HashLayoutStats(TypedDict):
    """The hash layout's figures; None in the log layout."""

    groups: int
    reserved_bytes: int
    reserved_garbage: int
    reserved_budget: int
    main_bytes: int
    segments: int
    cold_bytes: int
    cold_segments: int
    flush_waits: int
    flush_wait_micros: int

class ValueFileStats(TypedDict):
    """One value file (a sealed file, or the value log being written when is_log)."""

    number: int
    epoch: int
    is_log: bool
    total_bytes: int
    separated_bytes: int
    dropped_bytes: int
    punched_bytes: int
    valid_rate: float

class Stats(TypedDict):
    """What Db.stats() returns (as `twain stats --json` prints it)."""

    user_bytes_written: int
    user_ops: int
    write_groups: int
    synced_groups: int
    log_bytes_written: int
    stall_micros: int
    slowdowns: int
    stalls_memtables: int
    stall_memtables_micros: int
    stalls_l0: int
    stall_l0_micros: int
    stalls_log_file: int
    stall_log_file_micros: int
    flushes: int
    flush_bytes_written: int
    compactions: int
    trivial_moves: int
    compaction_parts: int
    split_compactions: int
    parts_offloaded: int
    parts_taken_back: int
    worker_bytes_written: int
    offload_check_bytes: int
    last_offload_failure: str | None
    compaction_bytes_read: int
    compaction_bytes_written: int
    drop_records: int
    drop_file_bytes_written: int
    manifest_bytes_written: int
    gets: int
    value_reads: int
    value_bytes_read: int
    prefetch_reads: int
    prefetch_bytes: int
    multi_get_reads: int
    prefetch_wasted_bytes: int
    recovered_torn_bytes: int
    gc_runs: int
    gc_bytes_read: int
    gc_bytes_written: int
    gc_files_deleted_unread: int
    gc_lsm_lookups: int
    gc_records_relocated: int
    gc_punch_runs: int
    gc_punched_bytes: int
    gc_punch_unsupported: bool
    svtable_searches: int
    scan_svtable_searches: int
    handle_fixups: int
    expired_entries: int
    compaction_handle_refreshes: int
    block_cache_hits: int
    block_cache_misses: int
    memtable_entries: int
    memtable_bytes: int
    referenced_bytes: int
    live_bytes: int
    live_keys: int
    expiring_keys: int
    live_bytes_age_ms: int | None
    live_bytes_versions_behind: int
    live_bytes_writes_behind: int
    live_bytes_error: str | None
    reclaimable_bytes: int
    reclaimable_dropped_bytes: int
    reclaimable_shadowed_bytes: int
    disk_tables: int
    disk_value_files: int
    disk_drop_files: int
    disk_manifest: int
    disk_other: int
    disk_total: int
    write_amplification: float
    write_amplification_since_open: float
    space_amplification: float | None
    total_user_bytes_written: int
    total_user_ops: int
    total_log_bytes_written: int
    total_flushes: int
    total_flush_bytes_written: int
    total_compactions: int
    total_compaction_bytes_read: int
    total_compaction_bytes_written: int
    total_drop_records: int
    total_drop_file_bytes_written: int
    total_manifest_bytes_written: int
    total_gc_runs: int
    total_gc_bytes_read: int
    total_gc_bytes_written: int
    total_gc_files_deleted_unread: int
    total_gc_records_relocated: int
    total_gc_punch_runs: int
    total_gc_punched_bytes: int
    total_small_bytes_written: int
    total_medium_bytes_written: int
    total_large_bytes_written: int
    total_transient_bytes_written: int
    total_hash_segment_bytes_written: int
    total_hash_gc_bytes_not_copied: int
    total_transient_bytes_freed: int
    total_medium_bytes_merged: int
    total_replaced_inline_bytes: int
    total_replaced_separated_bytes: int
    total_compaction_handle_refreshes: int
    total_compaction_parts: int
    total_split_compactions: int
    total_parts_offloaded: int
    total_parts_taken_back: int
    total_worker_bytes_written: int
    total_offload_check_bytes: int
    levels: list[LevelStats]
    value_files: list[ValueFileStats]
    gc_corrupt_dead_records: int
    gc_files_set_aside: int
    reclaimable_log_bytes: int
    space_amp_target: float
    space_floor: float | None
    space_target: str
    small_bytes_written: int
    medium_bytes_written: int
    large_bytes_written: int
    transient_bytes_written: int
    hash_segment_bytes_written: int
    hash_gc_bytes_not_copied: int
    transient_bytes_freed: int
    medium_bytes_merged: int
    replaced_inline_bytes: int
    replaced_separated_bytes: int
    transient_files: int
    transient_bytes: int
    hash_layout: HashLayoutStats | None
    garbage_compactions: int
    logs_sealed_for_gc: int

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

"""The types of ``Db.stats()``: dicts with these keys, as ``twain stats --json`` prints them.

The fields are the engine's ``twain::Stats`` (crates/twain/src/stats/mod.rs documents each);
``total_*`` are lifetime counters kept across reopening, the others count since this open
unless their name says otherwise. A test checks these keys against what ``stats()`` returns.
"""

from __future__ import annotations

from typing import TypedDict


class LevelStats(TypedDict):
    """One LSM level: its table files, their bytes on disk, the entries they hold, and
    the bytes its compactions aim to keep it under (0: none, see ``level_sizing``)."""

    files: int
    bytes: int
    entries: int
    target_bytes: int


class HashLayoutStats(TypedDict):
    """The hash layout's figures (``value_layout = hash``); ``None`` in the log layout."""

    groups: int
    reserved_bytes: int
    reserved_garbage: int
    cold_garbage: int
    reserved_budget: int
    main_bytes: int
    segments: int
    cold_bytes: int
    cold_segments: int
    flush_waits: int
    flush_wait_micros: int


class ValueFileStats(TypedDict):
    """One value file (a sealed file, or the value log being written when ``is_log``)."""

    number: int
    epoch: int
    is_log: bool
    total_bytes: int
    separated_bytes: int
    dropped_bytes: int
    punched_bytes: int
    valid_rate: float


class Stats(TypedDict):
    """What ``Db.stats()`` returns. ``None`` stands for "not known yet" or "no error"."""

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
    stalls_space: int
    stall_space_micros: int
    log_files_deleted_unsynced: int
    log_bytes_deleted_unsynced: int
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
    prefetch_stale_reads: int
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
    range_deletions: int
    range_deletion_tombstones: int
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
    total_refresh_compactions: int
    total_garbage_compactions: int
    total_logs_sealed_for_gc: int
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
    refresh_compactions: int
    stale_handles: int

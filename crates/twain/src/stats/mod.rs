//! Statistics: counters updated by the engine and a snapshot of them for users.

use std::sync::atomic::{AtomicU64, Ordering};

mod keys;
mod render;
mod totals;

pub use totals::Totals;

/// Counters updated as the engine works. Thread-safe (relaxed atomics).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub user_bytes: AtomicU64,
    pub user_ops: AtomicU64,
    pub write_groups: AtomicU64,
    pub synced_groups: AtomicU64,
    pub log_bytes: AtomicU64,
    pub stall_micros: AtomicU64,
    pub slowdowns: AtomicU64,
    pub stalls_memtables: AtomicU64,
    pub stall_memtables_micros: AtomicU64,
    pub stalls_l0: AtomicU64,
    pub stall_l0_micros: AtomicU64,
    pub stalls_log_file: AtomicU64,
    pub stall_log_file_micros: AtomicU64,
    pub stalls_space: AtomicU64,
    pub stall_space_micros: AtomicU64,
    pub log_files_deleted_unsynced: AtomicU64,
    pub log_bytes_deleted_unsynced: AtomicU64,
    pub flushes: AtomicU64,
    pub flush_bytes: AtomicU64,
    pub compactions: AtomicU64,
    pub trivial_moves: AtomicU64,
    pub compaction_parts: AtomicU64,
    pub split_compactions: AtomicU64,
    pub parts_offloaded: AtomicU64,
    pub parts_taken_back: AtomicU64,
    pub worker_bytes_written: AtomicU64,
    pub offload_check_bytes: AtomicU64,
    pub compaction_bytes_read: AtomicU64,
    pub compaction_bytes_written: AtomicU64,
    pub drop_records: AtomicU64,
    pub drop_file_bytes: AtomicU64,
    pub gets: AtomicU64,
    pub value_reads: AtomicU64,
    pub value_bytes_read: AtomicU64,
    pub recovered_torn_bytes: AtomicU64,
    pub gc_runs: AtomicU64,
    pub gc_bytes_read: AtomicU64,
    pub gc_bytes_written: AtomicU64,
    pub gc_lsm_lookups: AtomicU64,
    pub gc_records_relocated: AtomicU64,
    pub svtable_searches: AtomicU64,
    pub handle_fixups: AtomicU64,
    pub expired_entries: AtomicU64,
    pub range_deletions: AtomicU64,
    pub range_deletion_tombstones: AtomicU64,
    pub scan_svtable_searches: AtomicU64,
    pub compaction_handle_refreshes: AtomicU64,
    pub gc_corrupt_dead_records: AtomicU64,
    pub gc_files_set_aside: AtomicU64,
    pub garbage_compactions: AtomicU64,
    pub refresh_compactions: AtomicU64,
    pub logs_sealed_for_gc: AtomicU64,
    pub gc_punch_runs: AtomicU64,
    pub gc_punched_bytes: AtomicU64,
    pub gc_punch_unsupported: AtomicU64,
    pub small_bytes_written: AtomicU64,
    pub medium_bytes_written: AtomicU64,
    pub large_bytes_written: AtomicU64,
    pub transient_bytes_written: AtomicU64,
    pub hash_segment_bytes_written: AtomicU64,
    pub hash_gc_bytes_not_copied: AtomicU64,
    pub multi_get_reads: AtomicU64,
    pub hash_flush_waits: AtomicU64,
    pub hash_flush_wait_micros: AtomicU64,
    pub transient_bytes_freed: AtomicU64,
    pub medium_bytes_merged: AtomicU64,
    pub replaced_inline_bytes: AtomicU64,
    pub replaced_separated_bytes: AtomicU64,
    pub prefetch_reads: AtomicU64,
    pub prefetch_bytes: AtomicU64,
    pub prefetch_wasted_bytes: AtomicU64,
    pub prefetch_stale_reads: AtomicU64,
}

impl Counters {
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

/// One level of the key store.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LevelStats {
    /// Number of tables.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Entries in them.
    pub entries: u64,
    /// The bytes the level's compactions aim to keep it under (`Options::level_sizing`): 0
    /// for L0 (its trigger is a file count), for the last level (nothing lies below it),
    /// and for levels above the base under dynamic sizing (what they hold goes down).
    pub target_bytes: u64,
}

/// One value file.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueFileStats {
    /// File number.
    pub number: u64,
    /// Epoch: 0 for a value log file, n after the n-th GC rewrite.
    pub epoch: u32,
    /// Whether it is still part of the log replayed on open (not yet wholly flushed).
    pub is_log: bool,
    /// Bytes in the file.
    pub total_bytes: u64,
    /// Bytes of separated entries.
    pub separated_bytes: u64,
    /// Bytes of separated entries dropped by flushes and compactions.
    pub dropped_bytes: u64,
    /// Bytes of dropped records inside runs value GC punched out of the file (no longer
    /// on disk; counted in `dropped_bytes` too).
    pub punched_bytes: u64,
    /// Separated bytes still referenced / separated bytes (1.0 when none separated).
    pub valid_rate: f64,
}

/// Bytes on disk per kind of file, from listing the directory: allocated blocks
/// ([`Fs::allocated_bytes`](crate::fs::Fs::allocated_bytes)), what `du` counts, not
/// file lengths.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiskUsage {
    /// SSTables.
    pub tables: u64,
    /// Value files.
    pub value_files: u64,
    /// Drop files.
    pub drop_files: u64,
    /// Manifests and CURRENT.
    pub manifest: u64,
    /// Anything else (temporary files, LOCK).
    pub other: u64,
}

impl DiskUsage {
    /// Everything.
    pub fn total(&self) -> u64 {
        self.tables + self.value_files + self.drop_files + self.manifest + self.other
    }
}

/// A snapshot of the database's statistics, from [`Db::stats`](crate::Db::stats).
///
/// How the space amplification stands against `Options::space_amp_target`
/// ([`Stats::space_target`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpaceTarget {
    /// Nothing is live: the ratio means nothing.
    Unknown,
    /// At or under the target.
    Met,
    /// Over the target, with enough bytes the engine knows it can reclaim to meet it: the
    /// background is working on it (or `Db::gc` will).
    Reclaiming,
    /// Over the target, and freeing every byte known reclaimable would not meet it: what
    /// stays is overhead no GC frees, large beside small live data. `floor` is
    /// [`Stats::space_floor`].
    AtFloor {
        /// The space amplification the engine cannot go below.
        floor: f64,
    },
}

impl std::fmt::Display for SpaceTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpaceTarget::Unknown => write!(f, "unknown (nothing live)"),
            SpaceTarget::Met => write!(f, "met"),
            SpaceTarget::Reclaiming => write!(f, "over, reclaiming"),
            SpaceTarget::AtFloor { floor } => {
                write!(f, "out of reach: the floor is {floor:.2}")
            }
        }
    }
}

/// The counters at the top level count since this open; [`Stats::totals`] holds the
/// cumulative ones since the database was created.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Cumulative counters over the database's life (persisted in the manifest): the
    /// figures of earlier opens plus this one's.
    pub totals: Totals,
    /// Key + value bytes written by users (key bytes for deletes).
    pub user_bytes_written: u64,
    /// Operations written by users.
    pub user_ops: u64,
    /// Group commits (one log append each).
    pub write_groups: u64,
    /// Group commits that were synced.
    pub synced_groups: u64,
    /// Bytes appended to the value log.
    pub log_bytes_written: u64,
    /// Microseconds writers waited for background work (every cause below, and the
    /// L0 slowdowns).
    pub stall_micros: u64,
    /// Writes delayed because L0 reached the slowdown trigger.
    pub slowdowns: u64,
    /// Write stalls because `max_immutable_memtables` frozen memtables waited for flush.
    pub stalls_memtables: u64,
    /// Microseconds of those stalls.
    pub stall_memtables_micros: u64,
    /// Write stalls because L0 held `l0_stop_trigger` tables.
    pub stalls_l0: u64,
    /// Microseconds of those stalls.
    pub stall_l0_micros: u64,
    /// Write stalls because the active value file was full and the log thread had no
    /// spare file ready.
    pub stalls_log_file: u64,
    /// Microseconds of those stalls.
    pub stall_log_file_micros: u64,
    /// Writes that waited because the value log had used up its space budget (vlog GC
    /// mode: HashKV's vLog of a fixed size, whose writes wait for GC to free its tail).
    pub stalls_space: u64,
    /// Microseconds of those stalls.
    pub stall_space_micros: u64,
    /// Sealed value files of inline entries only that a flush deleted before the log
    /// thread synced them: their bytes need never be written to the disk.
    pub log_files_deleted_unsynced: u64,
    /// Their bytes.
    pub log_bytes_deleted_unsynced: u64,
    /// Memtable flushes.
    pub flushes: u64,
    /// Bytes of SSTables written by flushes.
    pub flush_bytes_written: u64,
    /// Compactions run (trivial moves included).
    pub compactions: u64,
    /// Compactions that moved a table down without rewriting it.
    pub trivial_moves: u64,
    /// Key-range parts compactions merged (`max_subcompactions`): one per compaction that
    /// was not split, trivial moves excluded.
    pub compaction_parts: u64,
    /// Compactions merged as two or more parts in parallel.
    pub split_compactions: u64,
    /// Compaction parts a worker ran whose outcome the host installed.
    pub parts_offloaded: u64,
    /// Compaction parts sent to a worker that the host ran itself after all (the worker failed, went silent, refused, or returned an outcome that failed the check).
    pub parts_taken_back: u64,
    /// Bytes of tables and value files written by a compaction worker, of the parts installed (part of `compaction_bytes_written`).
    pub worker_bytes_written: u64,
    /// Bytes the host read back to check what a compaction worker returned.
    pub offload_check_bytes: u64,
    /// Why the newest compaction part sent to a worker came back to the host, since open.
    pub last_offload_failure: Option<String>,
    /// Bytes of SSTables read by compactions.
    pub compaction_bytes_read: u64,
    /// Bytes of SSTables written by compactions.
    pub compaction_bytes_written: u64,
    /// Drop records emitted by flushes and compactions.
    pub drop_records: u64,
    /// Bytes written to drop files.
    pub drop_file_bytes_written: u64,
    /// Bytes written to manifests.
    pub manifest_bytes_written: u64,
    /// Point lookups.
    pub gets: u64,
    /// Values read from value files through handles.
    pub value_reads: u64,
    /// Bytes read that way.
    pub value_bytes_read: u64,
    /// Reads made for iterators' windows, by the prefetch threads or (values in the page
    /// cache) by the iterator itself (each covers one or more values that lie close
    /// together in one value file; the values are counted in `value_reads`).
    pub prefetch_reads: u64,
    /// Bytes those reads read.
    pub prefetch_bytes: u64,
    /// Positional reads `Db::multi_get` made for its batched values (each covers one or
    /// more values close together in one value file; the values are counted in
    /// `value_reads`).
    pub multi_get_reads: u64,
    /// Bytes of values prefetched but never used (the iterator moved elsewhere or was
    /// dropped first).
    pub prefetch_wasted_bytes: u64,
    /// Stale handles a scan's prefetcher resolved ahead of its cursor: the SVTable
    /// search made while reading ahead (counted in [`Stats::scan_svtable_searches`])
    /// found the record, and its value, read in parallel with its neighbours', was used.
    pub prefetch_stale_reads: u64,
    /// Bytes of torn log tail truncated when the database was opened.
    pub recovered_torn_bytes: u64,
    /// Value GC runs that rewrote a value file.
    pub gc_runs: u64,
    /// Bytes value GC read from value files.
    pub gc_bytes_read: u64,
    /// Bytes value GC wrote (SVTables, relocated records, drop files).
    pub gc_bytes_written: u64,
    /// Value files deleted without being read because nothing in them was live.
    pub gc_files_deleted_unread: u64,
    /// LSM-tree lookups made by value GC (0 in drop-records mode).
    pub gc_lsm_lookups: u64,
    /// Records relocated to the log head by GC in lsm-lookup mode.
    pub gc_records_relocated: u64,
    /// Reads whose handle was stale and searched an SVTable by key and sequence: point
    /// reads and scans ([`Stats::scan_svtable_searches`] is the scans' share).
    pub svtable_searches: u64,
    /// The part of [`Stats::svtable_searches`] made by iterators and their lazy entries:
    /// stale handles a scan met.
    pub scan_svtable_searches: u64,
    /// Stale handles fixed by reads re-inserting the entry with its new handle.
    pub handle_fixups: u64,
    /// Expired puts that flushes and compactions turned into tombstones or dropped, with
    /// their values, since this open.
    pub expired_entries: u64,
    /// Range deletions written ([`Db::delete_range`](crate::Db::delete_range)) since this
    /// open.
    pub range_deletions: u64,
    /// Tombstones flushes wrote for range deletions, one per key a range deleted, since
    /// this open.
    pub range_deletion_tombstones: u64,
    /// Stale handles compactions re-pointed at their record's current place (the new
    /// epoch of its value file) as they rewrote the table holding them.
    pub compaction_handle_refreshes: u64,
    /// Block cache hits.
    pub block_cache_hits: u64,
    /// Block cache misses.
    pub block_cache_misses: u64,
    /// Per level, L0 first.
    pub levels: Vec<LevelStats>,
    /// Every value file, oldest first.
    pub value_files: Vec<ValueFileStats>,
    /// Bytes on disk by kind.
    pub disk: DiskUsage,
    /// Entries in memtables (active and frozen).
    pub memtable_entries: u64,
    /// Bytes in memtables.
    pub memtable_bytes: u64,
    /// Bytes of data the key store still references: key and inline value bytes of every
    /// table plus separated bytes not yet dropped. Versions that are obsolete but not yet
    /// compacted away count as referenced; [`Stats::live_bytes`] does not count them.
    pub referenced_bytes: u64,
    /// The user's data: key + value bytes of the newest version of every key that is not
    /// deleted, in memtables and tables (what a model of the workload holds), as of the
    /// last pass over the key store.
    ///
    /// A separated value stored compressed (`value_compression`) counts its stored
    /// bytes: its length comes from its handle, and no value is read; so the figure, and
    /// the space amplification made from it, is of the data as it lies on disk.
    ///
    /// The pass merges the memtables and every table's keys (no value is read: a separated
    /// value's length comes from its handle), so its figure is exact — shadowed versions
    /// and tombstones count nothing whether or not compaction has dropped them yet;
    /// versions that only a snapshot still sees do not count. It reads every table, so
    /// `stats` does not make it: a background thread does, after each new version (a
    /// flush, compaction, value GC or log roll) or new writes, paced to at
    /// most a tenth of one core (after a pass that took `d`, the next starts no sooner
    /// than `10 × d` after it). So the figure is as old as [`Stats::live_bytes_age`] and
    /// misses the writes since ([`Stats::live_bytes_writes_behind`]) and the versions
    /// since ([`Stats::live_bytes_versions_behind`]); once writes stop, it becomes exact
    /// after the background settles. [`Db::refresh_live_bytes`](crate::Db::refresh_live_bytes)
    /// makes a pass on demand, and `Db::gc` and `Db::compact_range` end with one.
    ///
    /// Before the first pass (right after open, and always in a database opened
    /// read-only until a refresh) [`Stats::live_bytes_age`] is `None` and this is
    /// [`Stats::referenced_bytes`], an upper bound. So it is if the last pass could not
    /// read the key store (a damaged or unreadable table, see
    /// [`Stats::live_bytes_error`]); [`Stats::reclaimable_shadowed_bytes`] is then 0.
    pub live_bytes: u64,
    /// Keys whose newest version is not a tombstone (what a model of the workload holds),
    /// from the same pass as [`Stats::live_bytes`], so exact as of that pass and lagging
    /// it the same way. Before a pass (or after a failed one) it is the upper bound
    /// [`Stats::memtable_entries`] plus every table's entries: versions and tombstones
    /// count too.
    pub live_keys: u64,
    /// Of [`Stats::live_keys`], the keys that have an expiry time, from the same pass (0
    /// before a pass). Expired keys count in neither.
    pub expiring_keys: u64,
    /// How long ago the pass behind [`Stats::live_bytes`] started; `None` when the figure
    /// comes from no pass (none made yet, or the last one failed): it is then
    /// [`Stats::referenced_bytes`].
    pub live_bytes_age: Option<std::time::Duration>,
    /// Versions installed (flushes, compactions, value GC, log rolls) since the pass
    /// behind [`Stats::live_bytes`]; 0 without a pass.
    pub live_bytes_versions_behind: u64,
    /// Sequence numbers (about one per written key) applied since the pass behind
    /// [`Stats::live_bytes`] started; 0 without a pass. With
    /// [`Stats::live_bytes_versions_behind`] also 0, the figure is the current one.
    pub live_bytes_writes_behind: u64,
    /// Why the last pass behind [`Stats::live_bytes`] failed, if it did (`None` when it
    /// worked or none was made).
    pub live_bytes_error: Option<String>,
    /// Dead bytes in value files per drop records: separated entries flushes and
    /// compactions dropped, which value GC can reclaim.
    pub reclaimable_dropped_bytes: u64,
    /// Bytes of separated entries in value files that a newer version or a tombstone
    /// shadows but that no drop record names yet: they become dropped (and reclaimable by
    /// value GC) when compaction merges the versions, or right away if no snapshot needs
    /// them. Separated bytes not dropped (now) minus those the live versions of the pass
    /// behind [`Stats::live_bytes`] reference (as old as that pass).
    pub reclaimable_shadowed_bytes: u64,
    /// Bytes of the value files the log still writes to (not sealed yet) that hold no
    /// separated value: inline entries and framing, garbage once their memtable is flushed
    /// (the tables hold them). Sealing the log (`Db::gc`, or the background under the
    /// space target) makes them reclaimable. Dead separated bytes there are counted in the
    /// two figures above.
    pub reclaimable_log_bytes: u64,
    /// `Options::space_amp_target`.
    pub space_amp_target: f64,
    /// Garbage compactions run since this open (compactions picked to turn shadowed
    /// versions into drop records, or to drop expired puts from tables whose earliest
    /// expiry has passed, not for the shape of the tree).
    pub garbage_compactions: u64,
    /// Active value files sealed early for value GC since this open (by `Db::gc` or the
    /// background under the space target).
    pub logs_sealed_for_gc: u64,
    /// Refresh compactions run since this open: tables below L0 rewritten in place to
    /// re-point the handles that value GC left naming an older epoch of their file
    /// by the background when value GC runs there (docs/architecture.md, "Refresh
    /// compactions").
    pub refresh_compactions: u64,
    /// Newest versions in tables below L0 whose handle names an older epoch of its value
    /// file, per the same live-data pass as [`Stats::live_bytes`] (0 without one): each
    /// read of one searches the file's SVTable by key, until a compaction refreshes it.
    pub stale_handles: u64,
    /// Dead records value GC could not read (damaged) and left behind, as it would have.
    pub gc_corrupt_dead_records: u64,
    /// Value files value GC set aside since the database was opened: damaged where a live
    /// record may lie (see [`Db::gc_set_aside`](crate::Db::gc_set_aside)).
    pub gc_files_set_aside: u64,
    /// Bytes value GC freed by punching holes since this open.
    pub gc_punched_bytes: u64,
    /// Value GC runs since this open that punched a file's dead runs instead of
    /// rewriting it.
    pub gc_punch_runs: u64,
    /// Whether the file system refused to punch holes since this open: value GC then
    /// rewrites instead, and does not try punching again until the database is reopened.
    pub gc_punch_unsupported: bool,
    /// Key + value bytes users wrote in small pairs (inline everywhere). Since this open.
    pub small_bytes_written: u64,
    /// Key + value bytes users wrote in medium pairs (Parallax placement). Since this open.
    pub medium_bytes_written: u64,
    /// Key + value bytes users wrote in large pairs (separated at write time). Since this open.
    pub large_bytes_written: u64,
    /// Bytes of transient value files flushes wrote (medium values, sorted). Since this open.
    pub transient_bytes_written: u64,
    /// Bytes of hash-layout segments flushes wrote (large values and tombstones, per
    /// group). Since this open.
    pub hash_segment_bytes_written: u64,
    /// Bytes of live records in cold hash-layout segments that group GCs judged and left
    /// in place (hotness awareness). Since this open.
    pub hash_gc_bytes_not_copied: u64,
    /// Bytes of transient value files deleted whole (every value merged or dropped). Since this open.
    pub transient_bytes_freed: u64,
    /// Value bytes of medium pairs compaction merged in place (wrote inline). Since this open.
    pub medium_bytes_merged: u64,
    /// Value bytes compaction moved from value files into the tree because their pairs are now small. Since this open.
    pub replaced_inline_bytes: u64,
    /// Value bytes compaction moved from the tree into value files because their pairs are now large. Since this open.
    pub replaced_separated_bytes: u64,
    /// Transient value files (a flush's medium values) in the current version.
    pub transient_files: u64,
    /// Their bytes on disk, freed whole when compaction has merged or dropped every value.
    pub transient_bytes: u64,
    /// The hash layout's figures; `None` in the log layout.
    pub hash_layout: Option<HashLayoutStats>,
}

/// The hash layout's figures (see `docs/architecture.md`, "The hash layout").
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HashLayoutStats {
    /// Segment groups.
    pub groups: u32,
    /// Bytes of log segments: what flushes wrote since each group's last GC (the reserved
    /// pool in use).
    pub reserved_bytes: u64,
    /// The garbage on disk, estimated: the older records those log segments' entries
    /// killed (each flush estimates its segments from a sample of their keys looked up in
    /// the tree; segments written before this open count their bytes times the garbage
    /// per log byte seen so far; at least 5% of each segment's bytes), plus the dead
    /// records each group's last GC left in its cold segments.
    pub reserved_garbage: u64,
    /// The part of `reserved_garbage` in cold segments: the dead records each group's last
    /// GC (since this open) left there.
    pub cold_garbage: u64,
    /// The budget for that garbage: `(space_amp_target - 1)` times `main_bytes`, at least
    /// two memtables. A flush waits while the estimated garbage is at the budget.
    pub reserved_budget: u64,
    /// Bytes of main and cold segments (what group GCs kept).
    pub main_bytes: u64,
    /// Segment files.
    pub segments: u64,
    /// Bytes of cold segments (part of `main_bytes`): records that survived two GCs of
    /// their group, judged by later GCs and not copied while live.
    pub cold_bytes: u64,
    /// Cold segment files (part of `segments`).
    pub cold_segments: u64,
    /// Flushes that waited for group GC to make room. Since this open.
    pub flush_waits: u64,
    /// Microseconds they waited. Since this open.
    pub flush_wait_micros: u64,
}

impl Stats {
    /// Bytes written to files (log, tables, drop files, manifests, GC) per user byte, over
    /// the database's life ([`Stats::totals`]).
    pub fn write_amplification(&self) -> f64 {
        self.totals.write_amplification()
    }

    /// The same since this open.
    pub fn write_amplification_since_open(&self) -> f64 {
        self.since_open().write_amplification()
    }

    /// Every byte the engine wrote since this open: log, flushes, compactions, drop
    /// files, manifest, GC.
    pub fn engine_bytes_written(&self) -> u64 {
        self.since_open().engine_bytes_written()
    }

    /// The cumulative counters' figures since this open.
    pub fn since_open(&self) -> Totals {
        Totals {
            user_bytes_written: self.user_bytes_written,
            user_ops: self.user_ops,
            log_bytes_written: self.log_bytes_written,
            flushes: self.flushes,
            flush_bytes_written: self.flush_bytes_written,
            compactions: self.compactions,
            compaction_bytes_read: self.compaction_bytes_read,
            compaction_bytes_written: self.compaction_bytes_written,
            drop_records: self.drop_records,
            drop_file_bytes_written: self.drop_file_bytes_written,
            manifest_bytes_written: self.manifest_bytes_written,
            gc_runs: self.gc_runs,
            gc_bytes_read: self.gc_bytes_read,
            gc_bytes_written: self.gc_bytes_written,
            gc_files_deleted_unread: self.gc_files_deleted_unread,
            gc_records_relocated: self.gc_records_relocated,
            gc_punched_bytes: self.gc_punched_bytes,
            gc_punch_runs: self.gc_punch_runs,
            small_bytes_written: self.small_bytes_written,
            medium_bytes_written: self.medium_bytes_written,
            large_bytes_written: self.large_bytes_written,
            transient_bytes_written: self.transient_bytes_written,
            hash_segment_bytes_written: self.hash_segment_bytes_written,
            hash_gc_bytes_not_copied: self.hash_gc_bytes_not_copied,
            transient_bytes_freed: self.transient_bytes_freed,
            medium_bytes_merged: self.medium_bytes_merged,
            replaced_inline_bytes: self.replaced_inline_bytes,
            replaced_separated_bytes: self.replaced_separated_bytes,
            compaction_handle_refreshes: self.compaction_handle_refreshes,
            compaction_parts: self.compaction_parts,
            split_compactions: self.split_compactions,
            parts_offloaded: self.parts_offloaded,
            parts_taken_back: self.parts_taken_back,
            worker_bytes_written: self.worker_bytes_written,
            offload_check_bytes: self.offload_check_bytes,
            refresh_compactions: self.refresh_compactions,
            garbage_compactions: self.garbage_compactions,
            logs_sealed_for_gc: self.logs_sealed_for_gc,
        }
    }

    /// Allocated disk bytes per live byte ([`DiskUsage::total`] / [`Stats::live_bytes`]);
    /// `None` when nothing is live (every key deleted, or none written), where the ratio
    /// means nothing: the disk bytes then are all overhead or reclaimable.
    pub fn space_amplification(&self) -> Option<f64> {
        match self.live_bytes {
            0 => None,
            live => Some(self.disk.total() as f64 / live as f64),
        }
    }

    /// The space amplification if every byte the engine knows to be reclaimable were
    /// freed: (disk bytes − [`Stats::reclaimable_bytes`] − [`Stats::reclaimable_log_bytes`])
    /// / live bytes, at least 1; `None` when nothing is live. What stays is the live data
    /// and the overhead no GC frees (tables' indexes and filters, the manifest, file
    /// headers and partly filled blocks), which dominates when the live data is small.
    pub fn space_floor(&self) -> Option<f64> {
        let gone = self.reclaimable_bytes() + self.reclaimable_log_bytes;
        match self.live_bytes {
            0 => None,
            live => Some(self.disk.total().saturating_sub(gone).max(live) as f64 / live as f64),
        }
    }

    /// How the space amplification stands against [`Stats::space_amp_target`].
    pub fn space_target(&self) -> SpaceTarget {
        let Some(amp) = self.space_amplification() else {
            return SpaceTarget::Unknown;
        };
        if amp <= self.space_amp_target {
            return SpaceTarget::Met;
        }
        match self.space_floor() {
            Some(floor) if floor > self.space_amp_target => SpaceTarget::AtFloor { floor },
            _ => SpaceTarget::Reclaiming,
        }
    }

    /// Bytes the engine knows it can free: dead value-file bytes per drop records plus
    /// separated bytes shadowed but not yet dropped.
    pub fn reclaimable_bytes(&self) -> u64 {
        self.reclaimable_dropped_bytes + self.reclaimable_shadowed_bytes
    }

    /// Whether [`Stats::live_bytes`] comes from a pass over the state these statistics
    /// describe: no version installed and nothing written since it.
    pub fn live_bytes_is_current(&self) -> bool {
        self.live_bytes_age.is_some()
            && self.live_bytes_versions_behind == 0
            && self.live_bytes_writes_behind == 0
    }
}

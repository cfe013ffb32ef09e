//! The options that name one of several behaviours, and the value GC listener.

use std::sync::Arc;

/// How value GC decides which records of a value file are still live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcMode {
    /// From the drop records that flush and compaction emit (NovKV): no LSM lookups; the
    /// live records are rewritten, sorted, into an SVTable that keeps the file number with
    /// the next epoch; stale handles are found through it and fixed lazily on read.
    DropRecords,
    /// A hybrid: victims are picked from the drop records (NovKV's knowledge, so flush and
    /// compaction still write drop files), and each of their records is judged by looking
    /// it up in the LSM-tree; live records are appended to the head of the value log and
    /// their new handles written back into the tree. Not WiscKey's GC: that is
    /// [`GcMode::Vlog`].
    LsmLookup,
    /// WiscKey's circular log (vLog), the baseline the other modes are measured against:
    /// GC knows nothing from compaction. Flushes and compactions record no drops of log
    /// records (a flag in the manifest says so from then on, and the other modes refuse to
    /// open the database); GC collects the oldest sealed value file (the log's tail)
    /// whenever the space amplification is above `space_amp_target` (the budget: live data
    /// plus the reserved space), judges every record by LSM lookup, and appends the live
    /// ones to the head. See `docs/architecture.md`, "Value GC modes".
    Vlog,
}

impl GcMode {
    /// The option value that names the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            GcMode::DropRecords => "drop-records",
            GcMode::LsmLookup => "lsm-lookup",
            GcMode::Vlog => "vlog",
        }
    }

    /// Whether flushes and compactions record the drops of every value record (the modes
    /// that pick files by them).
    pub fn records_drops(self) -> bool {
        self != GcMode::Vlog
    }
}

/// Where separated values live on disk. Chosen when the database is created and recorded
/// in its manifest; opening an existing database uses the recorded layout whatever the
/// options say (`Stats::hash_layout` is `Some` in the hash layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueLayout {
    /// The value log (WiscKey): values are separated into the log at write time and
    /// collected per file by value GC in the chosen [`GcMode`].
    #[default]
    Log,
    /// Hash-grouped segments (HashKV): the log holds values only for recovery; the flush
    /// moves each large value into the segment of its key's group (`hash_groups` groups,
    /// by a hash of the key), and GC collects a whole group at a time, judging records
    /// from the group alone. See `docs/architecture.md`, "The hash layout".
    Hash,
}

impl ValueLayout {
    /// The option value that names the layout.
    pub fn as_str(self) -> &'static str {
        match self {
            ValueLayout::Log => "log",
            ValueLayout::Hash => "hash",
        }
    }
}

/// How the key store's levels are sized ([`Options::level_sizing`](super::Options::level_sizing)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LevelSizing {
    /// From L1 down: L1 targets `l1_target_size`, each deeper level `level_size_ratio`
    /// times more, and L0 compacts into L1.
    Static,
    /// From the biggest level up (RocksDB's `level_compaction_dynamic_level_bytes`): the
    /// last level's size sets its target, each level above targets `level_size_ratio`
    /// times less, and the first whose target is at most `l1_target_size` is the base,
    /// into which L0 compacts. A base that would target less than one L0 compaction
    /// brings (`l0_compaction_trigger` memtables) targets that instead, with the steps
    /// between it and the last level shortened to match. Levels above the base stay empty;
    /// about nine tenths of the data (at ratio 10) sit in the last level whatever the
    /// database's size. See `docs/architecture.md`, "Flush and compaction".
    #[default]
    Dynamic,
}

/// Which table of a level a size compaction takes
/// ([`Options::compaction_priority`](super::Options::compaction_priority)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompactionPriority {
    /// The table whose overlap in the next level is smallest for its own size (RocksDB's
    /// `kMinOverlappingRatio`, our own code): each byte moved down rewrites the fewest
    /// bytes below. Ties go round-robin.
    #[default]
    MinOverlap,
    /// The next table after the last one compacted from the level, wrapping around
    /// (LevelDB's compaction pointer).
    RoundRobin,
}

impl CompactionPriority {
    /// The option value that names the priority.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionPriority::MinOverlap => "min-overlap",
            CompactionPriority::RoundRobin => "round-robin",
        }
    }
}

impl LevelSizing {
    /// The option value that names the sizing.
    pub fn as_str(self) -> &'static str {
        match self {
            LevelSizing::Static => "static",
            LevelSizing::Dynamic => "dynamic",
        }
    }
}

/// A step of a value GC run, reported to [`Options::gc_listener`](super::Options::gc_listener).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcEvent {
    /// A run of value file `file` starts.
    Started {
        /// The value file.
        file: u64,
    },
    /// Its live records were read.
    LiveRecordsRead {
        /// The value file.
        file: u64,
        /// Number of live records.
        live: u64,
    },
    /// The rewritten file (SVTable, or relocated records in the log) is written and synced.
    OutputSynced {
        /// The value file.
        file: u64,
    },
    /// The manifest edit that switches to the output is durable and installed.
    Installed {
        /// The value file.
        file: u64,
    },
    /// The run is over; the old file is gone unless a reader still holds it.
    Finished {
        /// The value file.
        file: u64,
    },
}

/// Called at every step of a value GC run; the run waits until it returns.
pub type GcListener = Arc<dyn Fn(GcEvent) + Send + Sync>;

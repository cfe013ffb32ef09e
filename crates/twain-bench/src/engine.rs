//! The [`Engine`] trait: what a benchmarked store must do, and the counters it may report.

use crate::error::BenchResult;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A key-value store under benchmark. Implementations are shared between the benchmark's
/// threads, so they must be thread-safe.
pub trait Engine: Send + Sync {
    /// Short name used in reports (`twain`, `rocksdb`, ...).
    fn name(&self) -> &str;

    /// The directory holding the database, measured for its size.
    fn dir(&self) -> &Path;

    /// Sets `key` to `value` (synced if the engine was opened for sync writes).
    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()>;

    /// Reads `key`, returning the value's length if it is present.
    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>>;

    /// Deletes `key`.
    fn delete(&self, key: &[u8]) -> BenchResult<()>;

    /// Deletes every key from `start` (included) to `end` (excluded); `None` if the engine
    /// has no range deletion.
    fn delete_range(&self, start: &[u8], end: &[u8]) -> BenchResult<Option<()>> {
        let _ = (start, end);
        Ok(None)
    }

    /// Reads every key of `keys` in one request where the engine has one (twain's and
    /// RocksDB's `multi_get`), else one `get` after another; returns how many were found
    /// and their key + value bytes.
    fn multi_get(&self, keys: &[&[u8]]) -> BenchResult<(usize, u64)> {
        let (mut found, mut bytes) = (0, 0u64);
        for key in keys {
            if let Some(len) = self.get(key)? {
                found += 1;
                bytes += (key.len() + len) as u64;
            }
        }
        Ok((found, bytes))
    }

    /// Reads up to `n` pairs in key order from the first key at or after `start`,
    /// returning how many were read and their key + value bytes.
    fn scan(&self, start: &[u8], n: usize) -> BenchResult<(usize, u64)>;

    /// Reads up to `n` keys in order from the first key at or after `start` without
    /// reading their values, returning how many were read and their key bytes; `None` if
    /// the engine cannot iterate keys alone.
    fn scan_keys(&self, start: &[u8], n: usize) -> BenchResult<Option<(usize, u64)>> {
        let _ = (start, n);
        Ok(None)
    }

    /// Writes the memtable out and waits for it (used only by `--settle`).
    fn flush(&self) -> BenchResult<()>;

    /// The engine's own cumulative counters (fields it does not have are `None`).
    fn counters(&self) -> BenchResult<EngineCounters>;
}

/// An engine's own cumulative I/O counters. Deltas between two snapshots describe a phase.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EngineCounters {
    /// Every byte the engine says it wrote to files (log, tables, value files, GC output,
    /// manifests).
    pub bytes_written: Option<u64>,
    /// Bytes read from files by user reads (gets and scans), not by background work.
    pub user_read_file_bytes: Option<u64>,
    /// Bytes written to the write-ahead log (for twain: the value log).
    pub log_bytes: Option<u64>,
    /// Bytes written by memtable flushes.
    pub flush_bytes: Option<u64>,
    /// Bytes read by compactions.
    pub compaction_read_bytes: Option<u64>,
    /// Bytes written by compactions.
    pub compaction_write_bytes: Option<u64>,
    /// Bytes read by value-store garbage collection.
    pub gc_read_bytes: Option<u64>,
    /// Bytes written (relocated) by value-store garbage collection.
    pub gc_write_bytes: Option<u64>,
    /// Microseconds writers were stalled by background work.
    pub stall_micros: Option<u64>,
    /// Value GC runs finished.
    pub gc_runs: Option<u64>,
    /// LSM-tree lookups made by value GC to decide validity.
    pub gc_lsm_lookups: Option<u64>,
    /// Reads with a stale handle that searched the value file's newer copy.
    pub svtable_searches: Option<u64>,
    /// Stale handles fixed lazily after such a search.
    pub handle_fixups: Option<u64>,
    /// Bytes of live records GC judged and left where they were instead of copying them
    /// (twain's hash layout: its cold segments).
    pub gc_bytes_not_copied: Option<u64>,
    /// Write-stall counters by name (counts or microseconds, as the name says), e.g.
    /// twain's `slowdowns`. Each becomes a `stalls` entry of the phase and a table column.
    pub stalls: BTreeMap<String, u64>,
    /// Read-path counters by name (counts or bytes, as the name says), e.g. twain's
    /// `prefetch_reads`: what a phase's reads did inside the engine. Each becomes a
    /// `reads` entry of the phase.
    pub reads: BTreeMap<String, u64>,
}

impl EngineCounters {
    /// `self - earlier`, field by field (`None` where either lacks the field).
    pub fn delta(&self, earlier: &EngineCounters) -> EngineCounters {
        let d = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?));
        EngineCounters {
            bytes_written: d(self.bytes_written, earlier.bytes_written),
            user_read_file_bytes: d(self.user_read_file_bytes, earlier.user_read_file_bytes),
            log_bytes: d(self.log_bytes, earlier.log_bytes),
            flush_bytes: d(self.flush_bytes, earlier.flush_bytes),
            compaction_read_bytes: d(self.compaction_read_bytes, earlier.compaction_read_bytes),
            compaction_write_bytes: d(self.compaction_write_bytes, earlier.compaction_write_bytes),
            gc_read_bytes: d(self.gc_read_bytes, earlier.gc_read_bytes),
            gc_write_bytes: d(self.gc_write_bytes, earlier.gc_write_bytes),
            stall_micros: d(self.stall_micros, earlier.stall_micros),
            gc_runs: d(self.gc_runs, earlier.gc_runs),
            gc_lsm_lookups: d(self.gc_lsm_lookups, earlier.gc_lsm_lookups),
            svtable_searches: d(self.svtable_searches, earlier.svtable_searches),
            handle_fixups: d(self.handle_fixups, earlier.handle_fixups),
            gc_bytes_not_copied: d(self.gc_bytes_not_copied, earlier.gc_bytes_not_copied),
            stalls: delta_by_name(&self.stalls, &earlier.stalls),
            reads: delta_by_name(&self.reads, &earlier.reads),
        }
    }
}

/// `now - before` for every name in both.
fn delta_by_name(
    now: &BTreeMap<String, u64>,
    before: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    now.iter()
        .filter_map(|(name, &n)| Some((name.clone(), n.saturating_sub(*before.get(name)?))))
        .collect()
}

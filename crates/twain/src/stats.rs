//! Statistics: counters updated by the engine and a snapshot of them for users.

use std::sync::atomic::{AtomicU64, Ordering};

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
    pub flushes: AtomicU64,
    pub flush_bytes: AtomicU64,
    pub compactions: AtomicU64,
    pub trivial_moves: AtomicU64,
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
    pub gc_corrupt_dead_records: AtomicU64,
    pub gc_files_set_aside: AtomicU64,
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
    /// Separated bytes still referenced / separated bytes (1.0 when none separated).
    pub valid_rate: f64,
}

/// Bytes on disk per kind of file, from listing the directory.
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
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
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
    /// Memtable flushes.
    pub flushes: u64,
    /// Bytes of SSTables written by flushes.
    pub flush_bytes_written: u64,
    /// Compactions run (trivial moves included).
    pub compactions: u64,
    /// Compactions that moved a table down without rewriting it.
    pub trivial_moves: u64,
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
    /// Reads whose handle was stale and searched an SVTable by key and sequence.
    pub svtable_searches: u64,
    /// Stale handles fixed by re-inserting the entry with its new handle.
    pub handle_fixups: u64,
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
    /// Estimated bytes of data the key store still references: key and inline value bytes
    /// of every table plus separated bytes not yet dropped. Versions that are obsolete
    /// but not yet compacted away count as referenced, so this overestimates live data
    /// until compaction catches up.
    pub referenced_bytes: u64,
    /// Dead records value GC could not read (damaged) and left behind, as it would have.
    pub gc_corrupt_dead_records: u64,
    /// Value files value GC set aside since the database was opened: damaged where a live
    /// record may lie (see [`Db::gc_set_aside`](crate::Db::gc_set_aside)).
    pub gc_files_set_aside: u64,
}

impl Stats {
    /// Bytes written to files (log, tables, drop files, manifests) per user byte.
    pub fn write_amplification(&self) -> f64 {
        ratio(self.engine_bytes_written(), self.user_bytes_written)
    }

    /// Every byte the engine wrote: log, flushes, compactions, drop files, manifest, GC.
    pub fn engine_bytes_written(&self) -> u64 {
        self.log_bytes_written
            + self.flush_bytes_written
            + self.compaction_bytes_written
            + self.drop_file_bytes_written
            + self.manifest_bytes_written
            + self.gc_bytes_written
    }

    /// Bytes on disk per referenced byte (see [`Stats::referenced_bytes`]).
    pub fn space_amplification(&self) -> f64 {
        ratio(self.disk.total(), self.referenced_bytes)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

impl Stats {
    /// The statistics as one JSON object (field names as in the struct, plus
    /// `write_amplification` and `space_amplification`).
    pub fn to_json(&self) -> String {
        let mut o = JsonObject::default();
        o.num("user_bytes_written", self.user_bytes_written);
        o.num("user_ops", self.user_ops);
        o.num("write_groups", self.write_groups);
        o.num("synced_groups", self.synced_groups);
        o.num("log_bytes_written", self.log_bytes_written);
        o.num("stall_micros", self.stall_micros);
        o.num("slowdowns", self.slowdowns);
        o.num("stalls_memtables", self.stalls_memtables);
        o.num("stall_memtables_micros", self.stall_memtables_micros);
        o.num("stalls_l0", self.stalls_l0);
        o.num("stall_l0_micros", self.stall_l0_micros);
        o.num("stalls_log_file", self.stalls_log_file);
        o.num("stall_log_file_micros", self.stall_log_file_micros);
        o.num("flushes", self.flushes);
        o.num("flush_bytes_written", self.flush_bytes_written);
        o.num("compactions", self.compactions);
        o.num("trivial_moves", self.trivial_moves);
        o.num("compaction_bytes_read", self.compaction_bytes_read);
        o.num("compaction_bytes_written", self.compaction_bytes_written);
        o.num("drop_records", self.drop_records);
        o.num("drop_file_bytes_written", self.drop_file_bytes_written);
        o.num("manifest_bytes_written", self.manifest_bytes_written);
        o.num("gets", self.gets);
        o.num("value_reads", self.value_reads);
        o.num("value_bytes_read", self.value_bytes_read);
        o.num("recovered_torn_bytes", self.recovered_torn_bytes);
        o.num("gc_runs", self.gc_runs);
        o.num("gc_bytes_read", self.gc_bytes_read);
        o.num("gc_bytes_written", self.gc_bytes_written);
        o.num("gc_files_deleted_unread", self.gc_files_deleted_unread);
        o.num("gc_lsm_lookups", self.gc_lsm_lookups);
        o.num("gc_records_relocated", self.gc_records_relocated);
        o.num("svtable_searches", self.svtable_searches);
        o.num("handle_fixups", self.handle_fixups);
        o.num("block_cache_hits", self.block_cache_hits);
        o.num("block_cache_misses", self.block_cache_misses);
        o.num("memtable_entries", self.memtable_entries);
        o.num("memtable_bytes", self.memtable_bytes);
        o.num("referenced_bytes", self.referenced_bytes);
        o.num("disk_tables", self.disk.tables);
        o.num("disk_value_files", self.disk.value_files);
        o.num("disk_drop_files", self.disk.drop_files);
        o.num("disk_manifest", self.disk.manifest);
        o.num("disk_other", self.disk.other);
        o.num("disk_total", self.disk.total());
        o.float("write_amplification", self.write_amplification());
        o.float("space_amplification", self.space_amplification());
        let levels: Vec<String> = self
            .levels
            .iter()
            .map(|l| {
                format!(
                    "{{\"files\":{},\"bytes\":{},\"entries\":{}}}",
                    l.files, l.bytes, l.entries
                )
            })
            .collect();
        o.raw("levels", &format!("[{}]", levels.join(",")));
        let files: Vec<String> = self
            .value_files
            .iter()
            .map(|v| {
                format!(
                    "{{\"number\":{},\"epoch\":{},\"is_log\":{},\"total_bytes\":{},\"separated_bytes\":{},\"dropped_bytes\":{},\"valid_rate\":{}}}",
                    v.number,
                    v.epoch,
                    v.is_log,
                    v.total_bytes,
                    v.separated_bytes,
                    v.dropped_bytes,
                    json_float(v.valid_rate)
                )
            })
            .collect();
        o.raw("value_files", &format!("[{}]", files.join(",")));
        o.num("gc_corrupt_dead_records", self.gc_corrupt_dead_records);
        o.num("gc_files_set_aside", self.gc_files_set_aside);
        o.finish()
    }

    /// The statistics as readable text.
    pub fn to_text(&self) -> String {
        let mb = |b: u64| b as f64 / (1 << 20) as f64;
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str(&t);
            s.push('\n');
        };
        line(format!(
            "user writes      {} ops, {:.1} MiB",
            self.user_ops,
            mb(self.user_bytes_written)
        ));
        line(format!(
            "value log        {:.1} MiB in {} groups ({} synced)",
            mb(self.log_bytes_written),
            self.write_groups,
            self.synced_groups
        ));
        line(format!(
            "flushes          {} ({:.1} MiB)",
            self.flushes,
            mb(self.flush_bytes_written)
        ));
        line(format!(
            "compactions      {} ({} trivial moves), read {:.1} MiB, wrote {:.1} MiB",
            self.compactions,
            self.trivial_moves,
            mb(self.compaction_bytes_read),
            mb(self.compaction_bytes_written)
        ));
        line(format!(
            "drop records     {} ({:.2} MiB of drop files)",
            self.drop_records,
            mb(self.drop_file_bytes_written)
        ));
        line(format!(
            "value GC         {} runs, read {:.1} MiB, wrote {:.1} MiB, {} files deleted unread, {} LSM lookups, {} relocated",
            self.gc_runs,
            mb(self.gc_bytes_read),
            mb(self.gc_bytes_written),
            self.gc_files_deleted_unread,
            self.gc_lsm_lookups,
            self.gc_records_relocated
        ));
        line(format!(
            "stale handles    {} SVTable searches, {} fixed",
            self.svtable_searches, self.handle_fixups
        ));
        line(format!(
            "stalls           {} ms, {} slowdowns; memtables {} ({} ms), L0 {} ({} ms), log file {} ({} ms)",
            self.stall_micros / 1000,
            self.slowdowns,
            self.stalls_memtables,
            self.stall_memtables_micros / 1000,
            self.stalls_l0,
            self.stall_l0_micros / 1000,
            self.stalls_log_file,
            self.stall_log_file_micros / 1000
        ));
        line(format!(
            "reads            {} gets, {} value reads, block cache {} hits / {} misses",
            self.gets, self.value_reads, self.block_cache_hits, self.block_cache_misses
        ));
        line(format!(
            "memtables        {} entries, {:.1} MiB",
            self.memtable_entries,
            mb(self.memtable_bytes)
        ));
        for (i, l) in self.levels.iter().enumerate() {
            if l.files > 0 {
                line(format!(
                    "L{i}               {} files, {:.1} MiB, {} entries",
                    l.files,
                    mb(l.bytes),
                    l.entries
                ));
            }
        }
        for v in &self.value_files {
            line(format!(
                "value file {:06}.{} {}{:.1} MiB, separated {:.1} MiB, dropped {:.1} MiB, valid {:.0}%",
                v.number,
                v.epoch,
                if v.is_log { "(log) " } else { "" },
                mb(v.total_bytes),
                mb(v.separated_bytes),
                mb(v.dropped_bytes),
                v.valid_rate * 100.0
            ));
        }
        line(format!(
            "disk             {:.1} MiB: tables {:.1}, value files {:.1}, drop files {:.2}, manifest {:.2}",
            mb(self.disk.total()),
            mb(self.disk.tables),
            mb(self.disk.value_files),
            mb(self.disk.drop_files),
            mb(self.disk.manifest)
        ));
        line(format!(
            "amplification    write {:.2}, space {:.2}",
            self.write_amplification(),
            self.space_amplification()
        ));
        line(format!(
            "GC corruption    {} damaged dead records skipped, {} files set aside",
            self.gc_corrupt_dead_records, self.gc_files_set_aside
        ));
        s
    }
}

/// A float as JSON (non-finite values become 0).
fn json_float(f: f64) -> String {
    if f.is_finite() {
        format!("{f:.4}")
    } else {
        "0".to_string()
    }
}

/// Builds a flat JSON object with numeric and pre-rendered values.
#[derive(Default)]
struct JsonObject {
    fields: Vec<String>,
}

impl JsonObject {
    fn num(&mut self, name: &str, v: u64) {
        self.fields.push(format!("\"{name}\":{v}"));
    }

    fn float(&mut self, name: &str, v: f64) {
        self.fields.push(format!("\"{name}\":{}", json_float(v)));
    }

    fn raw(&mut self, name: &str, json: &str) {
        self.fields.push(format!("\"{name}\":{json}"));
    }

    fn finish(self) -> String {
        format!("{{{}}}", self.fields.join(","))
    }
}

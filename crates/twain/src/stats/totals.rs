//! Cumulative counters: the ones that persist across opens, in the manifest's
//! `Counters` field (`docs/format/manifest.md`).

use super::Counters;
use crate::format::manifest::CounterId;

/// Counters that add up over the database's whole life, or over one open.
///
/// [`Stats::totals`](super::Stats::totals) holds them since the database was created: the
/// values the manifest recorded at open plus what this open has done. Every manifest edit
/// (flush, compaction, value GC) and a clean close record them, so a crash loses at most
/// the work since the last edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Key + value bytes written by users (key bytes for deletes).
    pub user_bytes_written: u64,
    /// Operations written by users.
    pub user_ops: u64,
    /// Bytes appended to the value log.
    pub log_bytes_written: u64,
    /// Memtable flushes.
    pub flushes: u64,
    /// Bytes of SSTables written by flushes.
    pub flush_bytes_written: u64,
    /// Compactions run (trivial moves included).
    pub compactions: u64,
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
    /// Value GC runs that rewrote a value file.
    pub gc_runs: u64,
    /// Bytes value GC read from value files.
    pub gc_bytes_read: u64,
    /// Bytes value GC wrote (SVTables, relocated records, drop files).
    pub gc_bytes_written: u64,
    /// Value files deleted without being read because nothing in them was live.
    pub gc_files_deleted_unread: u64,
    /// Records relocated to the log head by GC in lsm-lookup mode.
    pub gc_records_relocated: u64,
    /// Bytes value GC freed by punching holes (whole blocks of dead runs).
    pub gc_punched_bytes: u64,
    /// Value GC runs that punched a file's dead runs instead of rewriting it.
    pub gc_punch_runs: u64,
    /// Key + value bytes users wrote in small pairs (inline everywhere).
    pub small_bytes_written: u64,
    /// Key + value bytes users wrote in medium pairs (Parallax placement).
    pub medium_bytes_written: u64,
    /// Key + value bytes users wrote in large pairs (separated at write time).
    pub large_bytes_written: u64,
    /// Bytes of transient value files flushes wrote (medium values, sorted).
    pub transient_bytes_written: u64,
    /// Bytes of hash-layout segments flushes wrote.
    pub hash_segment_bytes_written: u64,
    /// Bytes of live records in cold hash-layout segments that group GCs judged and left
    /// in place: what hotness awareness saved copying.
    pub hash_gc_bytes_not_copied: u64,
    /// Bytes of transient value files deleted whole (every value merged or dropped).
    pub transient_bytes_freed: u64,
    /// Value bytes of medium pairs compaction merged in place (wrote inline).
    pub medium_bytes_merged: u64,
    /// Value bytes compaction moved from value files into the tree because their pairs are now small.
    pub replaced_inline_bytes: u64,
    /// Value bytes compaction moved from the tree into value files because their pairs are now large.
    pub replaced_separated_bytes: u64,
    /// Stale handles (value GC rewrote their file since) compactions re-pointed at the
    /// file's new epoch.
    pub compaction_handle_refreshes: u64,
    /// Key-range parts compactions merged.
    pub compaction_parts: u64,
    /// Compactions merged as two or more parts.
    pub split_compactions: u64,
    /// Compaction parts a worker ran whose outcome the host installed.
    pub parts_offloaded: u64,
    /// Compaction parts sent to a worker that the host ran itself after all (the worker failed, went silent, refused, or returned an outcome that failed the check).
    pub parts_taken_back: u64,
    /// Bytes of tables and value files written by a compaction worker, of the parts installed (part of `compaction_bytes_written`).
    pub worker_bytes_written: u64,
    /// Bytes the host read back to check what a compaction worker returned.
    pub offload_check_bytes: u64,
    /// Refresh compactions: tables below L0 rewritten in place to re-point the handles
    /// value GC left stale (part of `compactions`).
    pub refresh_compactions: u64,
    /// Garbage compactions: compactions run to make dead versions visible to value GC
    /// (part of `compactions`).
    pub garbage_compactions: u64,
    /// Times the active value file was sealed because it held the garbage.
    pub logs_sealed_for_gc: u64,
}

impl Totals {
    /// Every field with its manifest id.
    fn fields(&mut self) -> [(CounterId, &mut u64); 38] {
        use CounterId as C;
        [
            (C::UserBytes, &mut self.user_bytes_written),
            (C::UserOps, &mut self.user_ops),
            (C::LogBytes, &mut self.log_bytes_written),
            (C::Flushes, &mut self.flushes),
            (C::FlushBytes, &mut self.flush_bytes_written),
            (C::Compactions, &mut self.compactions),
            (C::CompactionBytesRead, &mut self.compaction_bytes_read),
            (
                C::CompactionBytesWritten,
                &mut self.compaction_bytes_written,
            ),
            (C::DropRecords, &mut self.drop_records),
            (C::DropFileBytes, &mut self.drop_file_bytes_written),
            (C::ManifestBytes, &mut self.manifest_bytes_written),
            (C::GcRuns, &mut self.gc_runs),
            (C::GcBytesRead, &mut self.gc_bytes_read),
            (C::GcBytesWritten, &mut self.gc_bytes_written),
            (C::GcFilesDeletedUnread, &mut self.gc_files_deleted_unread),
            (C::GcRecordsRelocated, &mut self.gc_records_relocated),
            (C::GcPunchedBytes, &mut self.gc_punched_bytes),
            (C::GcPunchRuns, &mut self.gc_punch_runs),
            (C::SmallBytes, &mut self.small_bytes_written),
            (C::MediumBytes, &mut self.medium_bytes_written),
            (C::LargeBytes, &mut self.large_bytes_written),
            (C::TransientBytesWritten, &mut self.transient_bytes_written),
            (
                C::HashSegmentBytesWritten,
                &mut self.hash_segment_bytes_written,
            ),
            (C::HashGcBytesNotCopied, &mut self.hash_gc_bytes_not_copied),
            (C::TransientBytesFreed, &mut self.transient_bytes_freed),
            (C::MediumBytesMerged, &mut self.medium_bytes_merged),
            (C::ReplacedInlineBytes, &mut self.replaced_inline_bytes),
            (
                C::ReplacedSeparatedBytes,
                &mut self.replaced_separated_bytes,
            ),
            (
                C::CompactionHandleRefreshes,
                &mut self.compaction_handle_refreshes,
            ),
            (C::CompactionParts, &mut self.compaction_parts),
            (C::SplitCompactions, &mut self.split_compactions),
            (C::PartsOffloaded, &mut self.parts_offloaded),
            (C::PartsTakenBack, &mut self.parts_taken_back),
            (C::WorkerBytesWritten, &mut self.worker_bytes_written),
            (C::OffloadCheckBytes, &mut self.offload_check_bytes),
            (C::RefreshCompactions, &mut self.refresh_compactions),
            (C::GarbageCompactions, &mut self.garbage_compactions),
            (C::LogsSealedForGc, &mut self.logs_sealed_for_gc),
        ]
    }

    /// The totals a manifest's `(id, value)` pairs record; unknown ids are ignored here
    /// (see [`Totals::to_pairs`] for how they are kept).
    pub fn from_pairs(pairs: &[(u64, u64)]) -> Totals {
        let mut t = Totals::default();
        for (id, field) in t.fields() {
            if let Some(&(_, v)) = pairs.iter().find(|(i, _)| *i == id as u64) {
                *field = v;
            }
        }
        t
    }

    /// The `(id, value)` pairs to record, sorted by id: every known field, and the pairs of
    /// `previous` whose ids this version does not know, unchanged.
    pub fn to_pairs(mut self, previous: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut pairs: Vec<(u64, u64)> = self
            .fields()
            .into_iter()
            .map(|(id, v)| (id as u64, *v))
            .collect();
        for &(id, v) in previous {
            if !pairs.iter().any(|(i, _)| *i == id) {
                pairs.push((id, v));
            }
        }
        pairs.sort_unstable();
        pairs
    }

    /// Field-wise sum (saturating).
    pub fn plus(mut self, mut other: Totals) -> Totals {
        for ((_, a), (_, b)) in self.fields().into_iter().zip(other.fields()) {
            *a = a.saturating_add(*b);
        }
        self
    }

    /// Every byte the engine wrote: log, flushes (and their transient value files),
    /// compactions, drop files, manifest, GC.
    pub fn engine_bytes_written(&self) -> u64 {
        self.log_bytes_written
            + self.flush_bytes_written
            + self.compaction_bytes_written
            + self.drop_file_bytes_written
            + self.manifest_bytes_written
            + self.gc_bytes_written
            + self.transient_bytes_written
            + self.hash_segment_bytes_written
    }

    /// Bytes the engine wrote per user byte (0 before anything was written).
    pub fn write_amplification(&self) -> f64 {
        match self.user_bytes_written {
            0 => 0.0,
            user => self.engine_bytes_written() as f64 / user as f64,
        }
    }
}

impl Counters {
    /// This open's share of the persisted counters; the manifest's and value GC's own
    /// figures come from the version set.
    pub fn totals(&self, manifest_bytes: u64, gc_files_deleted_unread: u64) -> Totals {
        let g = Counters::get;
        Totals {
            user_bytes_written: g(&self.user_bytes),
            user_ops: g(&self.user_ops),
            log_bytes_written: g(&self.log_bytes),
            flushes: g(&self.flushes),
            flush_bytes_written: g(&self.flush_bytes),
            compactions: g(&self.compactions),
            compaction_bytes_read: g(&self.compaction_bytes_read),
            compaction_bytes_written: g(&self.compaction_bytes_written),
            drop_records: g(&self.drop_records),
            drop_file_bytes_written: g(&self.drop_file_bytes),
            manifest_bytes_written: manifest_bytes,
            gc_runs: g(&self.gc_runs),
            gc_bytes_read: g(&self.gc_bytes_read),
            gc_bytes_written: g(&self.gc_bytes_written),
            gc_files_deleted_unread,
            gc_records_relocated: g(&self.gc_records_relocated),
            gc_punched_bytes: g(&self.gc_punched_bytes),
            gc_punch_runs: g(&self.gc_punch_runs),
            small_bytes_written: g(&self.small_bytes_written),
            medium_bytes_written: g(&self.medium_bytes_written),
            large_bytes_written: g(&self.large_bytes_written),
            transient_bytes_written: g(&self.transient_bytes_written),
            hash_segment_bytes_written: g(&self.hash_segment_bytes_written),
            hash_gc_bytes_not_copied: g(&self.hash_gc_bytes_not_copied),
            transient_bytes_freed: g(&self.transient_bytes_freed),
            medium_bytes_merged: g(&self.medium_bytes_merged),
            replaced_inline_bytes: g(&self.replaced_inline_bytes),
            replaced_separated_bytes: g(&self.replaced_separated_bytes),
            compaction_handle_refreshes: g(&self.compaction_handle_refreshes),
            compaction_parts: g(&self.compaction_parts),
            split_compactions: g(&self.split_compactions),
            parts_offloaded: g(&self.parts_offloaded),
            parts_taken_back: g(&self.parts_taken_back),
            worker_bytes_written: g(&self.worker_bytes_written),
            offload_check_bytes: g(&self.offload_check_bytes),
            refresh_compactions: g(&self.refresh_compactions),
            garbage_compactions: g(&self.garbage_compactions),
            logs_sealed_for_gc: g(&self.logs_sealed_for_gc),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_round_trip_and_keep_unknown_ids() {
        let t = Totals {
            user_bytes_written: 5,
            gc_records_relocated: 9,
            ..Totals::default()
        };
        let pairs = t.to_pairs(&[(99, 7), (1, 123)]);
        assert_eq!(Totals::from_pairs(&pairs), t);
        assert!(pairs.contains(&(99, 7)));
        assert!(pairs.contains(&(1, 5)));
        assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(t.plus(t).user_bytes_written, 10);
    }
}

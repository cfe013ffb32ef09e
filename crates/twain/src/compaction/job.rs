//! A compaction part described by value (Co-KV's self-contained job): its input tables by
//! manifest record, its key range, the snapshots it must keep, what the levels below it
//! hold, the value files' epochs, its settings and the output file numbers the host
//! reserved. `compaction::part` runs one from this description and a [`PartEnv`], which
//! opens files by number, and returns a [`PartOutcome`]: output tables, drop records, a
//! placed value file and figures. Nothing of the database's in-memory state is reached
//! otherwise; `db` builds the jobs, runs them and installs what they return.

use super::split::PartRange;
use crate::Result;
use crate::format::manifest::{TableRecord, ValueFileOrigin, ValueFileRecord};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::placement::Placement;
use crate::table::TableOptions;
use crate::version::TableFile;
use crate::vlog::{DropWriter, ValueFile};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// The key range `[begin, end]` a manual compaction was asked for (`None`: unbounded). A
/// table it compacts may hold keys outside it, whose copies in the levels above it does
/// not merge down: those are never merged into the tree (`compaction::place`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManualRange {
    /// First user key, if bounded.
    pub begin: Option<Vec<u8>>,
    /// Last user key (inclusive), if bounded.
    pub end: Option<Vec<u8>>,
}

impl ManualRange {
    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.begin.as_deref().is_none_or(|b| key >= b)
            && self.end.as_deref().is_none_or(|e| key <= e)
    }
}

/// How a part writes its outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartSettings {
    /// Output tables are cut once they reach this size (between user keys).
    pub target_file_size: u64,
    /// How output tables are laid out.
    pub table: TableOptions,
    /// The size classes and merge level (Parallax).
    pub(crate) placement: Placement,
    /// How values the compaction separates out of the tree (now large) are compressed.
    pub value_compression: crate::Compression,
    /// Re-point stale handles at their file's new epoch (drop-records GC mode only:
    /// `compaction::refresh`).
    pub refresh: bool,
}

impl PartSettings {
    /// The settings `opts` ask for.
    pub fn from_options(opts: &crate::Options) -> PartSettings {
        PartSettings {
            target_file_size: opts.target_file_size,
            table: opts.table_options(0),
            placement: opts.placement(),
            value_compression: opts.value_compression,
            refresh: opts.gc_mode == crate::GcMode::DropRecords,
        }
    }
}

/// One key-range part of a compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartJob {
    /// The level compacted from.
    pub level: usize,
    /// The level written to.
    pub output_level: usize,
    /// The tables of `level` taking part.
    pub inputs: Vec<TableRecord>,
    /// The tables of `output_level` taking part.
    pub lower: Vec<TableRecord>,
    /// The user keys this part merges.
    pub range: PartRange,
    /// The sequence numbers of the live snapshots: versions they see are kept.
    pub snapshots: Vec<SeqNo>,
    /// For each level below `output_level`, the user-key ranges (`smallest..=largest`) of
    /// its tables that overlap the part, in key order: where a deeper level may hold a key.
    pub deeper: Vec<Vec<(Vec<u8>, Vec<u8>)>>,
    /// Every value file of the version: its current epoch and who wrote it.
    pub value_files: BTreeMap<u64, (u32, ValueFileOrigin)>,
    /// How to write the outputs.
    pub settings: PartSettings,
    /// The range of a manual compaction, inside which placement may merge any handle
    /// (`compaction::place`); `None` for an automatic compaction.
    pub manual: Option<ManualRange>,
    /// File numbers reserved for the part's outputs (tables and a placed value file).
    pub numbers: Range<u64>,
    /// The time expiry is judged at (milliseconds since the Unix epoch, by the database's
    /// clock when the job was made): puts expired by then are dropped, with their values.
    pub now: u64,
    /// Hash layout: where handles naming segments that group GC merged away find their
    /// records (`compaction::refresh`). Not sent to a compaction worker: offload is not
    /// supported in the hash layout yet.
    pub hash_forward: Option<HashForward>,
}

/// The hash layout's groups and each group's main and cold segments, as of the
/// compaction's version (`VersionState::hash_chains`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashForward {
    /// The number of groups.
    pub groups: u32,
    /// Each group's main segment, then its cold segments newest first, by group.
    pub chains: BTreeMap<u32, Vec<u64>>,
}

impl HashForward {
    /// The main and cold segments of `key`'s group, in search order.
    pub fn chain_of(&self, key: &[u8]) -> &[u64] {
        self.chains
            .get(&crate::hash_layout::group_of(key, self.groups))
            .map_or(&[], Vec::as_slice)
    }
}

impl PartJob {
    /// Whether some level below the output level may hold user key `key`.
    pub fn deeper_may_hold(&self, key: &[u8]) -> bool {
        self.deeper.iter().any(|ranges| {
            // The first table whose largest key is at least `key`.
            let i = ranges.partition_point(|(_, hi)| hi.as_slice() < key);
            ranges.get(i).is_some_and(|(lo, _)| lo.as_slice() <= key)
        })
    }
}

/// What a part did, for the statistics (counted once its compaction is installed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartFigures {
    /// Bytes of the output tables.
    pub table_bytes_written: u64,
    /// Value bytes read from value files to merge them into the tree.
    pub value_bytes_read: u64,
    /// Value bytes of medium pairs merged in place.
    pub medium_bytes_merged: u64,
    /// Value bytes re-placed from value files into the tree.
    pub replaced_inline_bytes: u64,
    /// Value bytes re-placed from the tree into the part's value file.
    pub replaced_separated_bytes: u64,
    /// Stale handles re-pointed at their file's new epoch.
    pub handle_refreshes: u64,
    /// Expired puts turned into tombstones or dropped, their values with them.
    pub expired_entries: u64,
}

/// What a part that ran to its end produced. Nothing of it is installed yet.
#[derive(Debug)]
pub struct PartOutcome {
    /// Output tables, in key order, all in the job's output level.
    pub tables: Vec<TableRecord>,
    /// The drop records of the entries it dropped or merged into the tree.
    pub drops: DropWriter,
    /// The value file it wrote values re-placed out of the tree into, if any (born at
    /// epoch 1, origin *placed*).
    pub placed: Option<ValueFileRecord>,
    /// Its figures.
    pub figures: PartFigures,
}

/// What a part reaches besides its description: the files, by number. The host's
/// implementation hands out the version's open tables and the drop index; a worker's opens
/// everything through the file system.
pub trait PartEnv: Sync {
    /// The file system holding the database.
    fn fs(&self) -> &Arc<dyn Fs>;
    /// The database directory.
    fn dir(&self) -> &Path;
    /// The open input table `record` (one of the job's).
    fn table(&self, record: &TableRecord) -> Result<Arc<TableFile>>;
    /// Value file `number` at `epoch` (the job's epoch for it), if there is one.
    fn value_file(&self, number: u64, epoch: u32) -> Result<Option<Arc<ValueFile>>>;
    /// Whether record `seq` of value file `number` is in the drop set of epoch `epoch`.
    /// Saying yes too often is safe (a handle is then left as it is); too rarely is not.
    fn is_dropped(&self, number: u64, epoch: u32, seq: SeqNo) -> Result<bool>;
    /// Whether the part should stop early (the database is closing, another part failed).
    fn stopped(&self) -> bool;
    /// Called as the part merges (with `stopped`, every 4,096 entries): the host may rest
    /// here, so that background work yields to the foreground (`db::pacing`). A worker
    /// process has no foreground to yield to.
    fn pace(&self) {}
    /// A file number past the reserved ones, for a part that used them all; an
    /// environment without one fails the part.
    fn extra_file_number(&self) -> Result<u64>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(deeper: Vec<Vec<(&str, &str)>>) -> PartJob {
        PartJob {
            level: 0,
            output_level: 1,
            inputs: Vec::new(),
            lower: Vec::new(),
            range: PartRange::default(),
            snapshots: Vec::new(),
            deeper: deeper
                .into_iter()
                .map(|l| {
                    l.into_iter()
                        .map(|(a, b)| (a.as_bytes().to_vec(), b.as_bytes().to_vec()))
                        .collect()
                })
                .collect(),
            value_files: BTreeMap::new(),
            settings: PartSettings::from_options(&crate::Options::default()),
            manual: None,
            numbers: 10..12,
            now: 0,
            hash_forward: None,
        }
    }

    #[test]
    fn deeper_levels_hold_exactly_their_tables_ranges() {
        let j = job(vec![vec![("b", "d"), ("f", "h")], vec![("x", "z")]]);
        for k in ["b", "c", "d", "f", "h", "y"] {
            assert!(j.deeper_may_hold(k.as_bytes()), "{k}");
        }
        for k in ["a", "e", "i", "w", "zz"] {
            assert!(!j.deeper_may_hold(k.as_bytes()), "{k}");
        }
        assert!(!job(Vec::new()).deeper_may_hold(b"a"));
    }

    #[test]
    fn manual_ranges_are_inclusive() {
        let r = ManualRange {
            begin: Some(b"b".to_vec()),
            end: Some(b"d".to_vec()),
        };
        assert!(r.contains(b"b") && r.contains(b"d") && !r.contains(b"e") && !r.contains(b"a"));
        assert!(ManualRange::default().contains(b""));
    }
}

//! Version edits, the records of the manifest. Specified in `docs/format/manifest.md`.
//!
//! ```text
//! manifest := file_header(Manifest, manifest_number) frame(edit)*
//! edit := field*
//! field := tag: varint body          -- tags below; an unknown tag is corruption
//! ```

use super::coding::{DecodeError, Decoder, put_len_prefixed, put_varint};
use crate::key::SeqNo;

/// Field tags of a version edit.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    /// `next_file_number: varint`
    NextFileNumber = 1,
    /// `last_sequence: varint`
    LastSequence = 2,
    /// `file: varint | offset: varint` — the flushed point.
    FlushedPoint = 3,
    /// `level | number | file_size | smallest: len-prefixed | largest: len-prefixed |
    /// smallest_seq | largest_seq` (integers as varints).
    AddTable = 4,
    /// `level: varint | number: varint`
    DeleteTable = 5,
    /// `number | epoch | total_bytes | separated_bytes | separated_count` (varints).
    AddValueFile = 6,
    /// `number | epoch | dropped_count | dropped_bytes` (varints): drops counted by one
    /// edit against one epoch of a value file.
    ValueFileDrops = 7,
    /// `number: varint`
    DeleteValueFile = 8,
    /// `level: varint | key: len-prefixed` — where the next compaction of a level starts.
    CompactPointer = 9,
    /// `seq: varint` — the largest sequence number at or before the flushed point.
    FlushedSequence = 10,
    /// `count: varint | (id: varint | value: varint){count}` — the database's cumulative
    /// counters (ids in [`CounterId`]) as of this edit. Replaces earlier ones; absent from
    /// manifests written before it existed.
    Counters = 11,
    /// `number | epoch | records | record_bytes | punched_bytes | runs | (start | end){runs}`
    /// (varints) — dead runs of one epoch of a value file whose storage value GC freed by
    /// punching holes: scanners skip each `[start, end)`.
    PunchedRuns = 12,
    /// `number | origin` (varints) — a value file that placement wrote sorted, not the value
    /// log ([`ValueFileOrigin`]); given in the edit that adds the file and in snapshots.
    ValueFileOrigin = 13,
    /// `1` (a varint) — from this edit on, flushes and compactions do not record the drops
    /// of log records (the database ran with value GC in vlog mode, which judges records by
    /// LSM lookup): drop counts understate the garbage of every value file. Never cleared;
    /// given in snapshots.
    DropsUntracked = 14,
    /// `groups: varint` (at least 1) — the database stores separated values in the hash
    /// layout with this many segment groups (`hash_layout`). Given by the creating edit and
    /// in snapshots; never changed.
    HashLayout = 15,
    /// `number | group` (varints) — a value file that is a segment of a hash-layout group
    /// (origin [`ValueFileOrigin::Hash`]); given in the edit that adds the file and in
    /// snapshots.
    HashSegment = 16,
    /// `number` (a varint) — a hash-layout segment that holds its group's *cold* records
    /// (hotness awareness: records that survived two group GCs), which the group's GC
    /// judges but does not copy; given after the segment's [`Tag::HashSegment`] in the
    /// edit that adds it, and in snapshots.
    HashColdSegment = 17,
}

impl TryFrom<u64> for Tag {
    type Error = u64;

    fn try_from(v: u64) -> Result<Self, u64> {
        Ok(match v {
            1 => Tag::NextFileNumber,
            2 => Tag::LastSequence,
            3 => Tag::FlushedPoint,
            4 => Tag::AddTable,
            5 => Tag::DeleteTable,
            6 => Tag::AddValueFile,
            7 => Tag::ValueFileDrops,
            8 => Tag::DeleteValueFile,
            9 => Tag::CompactPointer,
            10 => Tag::FlushedSequence,
            11 => Tag::Counters,
            12 => Tag::PunchedRuns,
            13 => Tag::ValueFileOrigin,
            14 => Tag::DropsUntracked,
            15 => Tag::HashLayout,
            16 => Tag::HashSegment,
            17 => Tag::HashColdSegment,
            other => return Err(other),
        })
    }
}

/// Ids of the cumulative counters a [`Tag::Counters`] field carries.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in manifests. An id a reader does not
/// know is kept as it is and written back, so a newer engine's counters survive an older
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum CounterId {
    /// Key + value bytes written by users.
    UserBytes = 1,
    /// Operations written by users.
    UserOps = 2,
    /// Bytes appended to the value log.
    LogBytes = 3,
    /// Memtable flushes.
    Flushes = 4,
    /// Bytes of SSTables written by flushes.
    FlushBytes = 5,
    /// Compactions run.
    Compactions = 6,
    /// Bytes of SSTables read by compactions.
    CompactionBytesRead = 7,
    /// Bytes of SSTables written by compactions.
    CompactionBytesWritten = 8,
    /// Drop records emitted.
    DropRecords = 9,
    /// Bytes written to drop files.
    DropFileBytes = 10,
    /// Bytes written to manifests.
    ManifestBytes = 11,
    /// Value GC runs that rewrote a value file.
    GcRuns = 12,
    /// Bytes value GC read.
    GcBytesRead = 13,
    /// Bytes value GC wrote.
    GcBytesWritten = 14,
    /// Value files deleted unread because nothing in them was live.
    GcFilesDeletedUnread = 15,
    /// Records relocated by GC in lsm-lookup mode.
    GcRecordsRelocated = 16,
    /// Bytes value GC freed by punching holes.
    GcPunchedBytes = 17,
    /// Value GC runs that punched holes instead of rewriting.
    GcPunchRuns = 18,
    /// Key + value bytes users wrote in small pairs (placement).
    SmallBytes = 19,
    /// Key + value bytes users wrote in medium pairs.
    MediumBytes = 20,
    /// Key + value bytes users wrote in large pairs.
    LargeBytes = 21,
    /// Bytes of transient value files written by flushes (medium values).
    TransientBytesWritten = 22,
    /// Bytes of transient value files deleted (every value merged or dropped).
    TransientBytesFreed = 23,
    /// Value bytes of medium pairs that compaction merged in place (wrote inline).
    MediumBytesMerged = 24,
    /// Value bytes compaction re-placed from a value file into the tree (pairs below
    /// `medium_threshold`, after the thresholds changed).
    ReplacedInlineBytes = 25,
    /// Value bytes compaction re-placed from the tree into a value file (pairs at or above
    /// `inline_threshold`, after the thresholds changed).
    ReplacedSeparatedBytes = 26,
    /// Stale value handles compactions re-pointed at their file's new epoch.
    CompactionHandleRefreshes = 27,
    /// Key-range parts compactions merged.
    CompactionParts = 28,
    /// Compactions merged as two or more parts in parallel.
    SplitCompactions = 29,
    /// Compaction parts a worker ran whose outcome the host installed.
    PartsOffloaded = 30,
    /// Compaction parts sent to a worker that the host ran itself after all (the worker failed, went silent, refused, or returned an outcome that failed the check).
    PartsTakenBack = 31,
    /// Bytes of tables and value files written by a compaction worker, of the parts installed (part of `compaction_bytes_written`).
    WorkerBytesWritten = 32,
    /// Bytes the host read back to check what a compaction worker returned.
    OffloadCheckBytes = 33,
    /// Bytes of hash-layout segments written by flushes.
    HashSegmentBytesWritten = 34,
    /// Bytes of live records in cold hash-layout segments that group GCs judged and left in place (hotness awareness).
    HashGcBytesNotCopied = 35,
    /// Refresh compactions: tables below L0 rewritten in place to re-point stale handles.
    RefreshCompactions = 36,
    /// Garbage compactions: compactions run to make dead versions visible to value GC.
    GarbageCompactions = 37,
    /// Times the active value file was sealed because it held the garbage.
    LogsSealedForGc = 38,
}

/// Who wrote a value file (tag 13). A file without the tag is a value log's.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum ValueFileOrigin {
    /// The value log (epoch 0), possibly rewritten by value GC since.
    #[default]
    Log = 0,
    /// A flush: the sorted transient file of a memtable's medium values (epoch 1). Value GC
    /// leaves it alone; it is freed whole once compaction merged or dropped every value.
    Transient = 1,
    /// A compaction: values it re-placed out of the tree (epoch 1); collected by value GC
    /// like any other.
    Placed = 2,
    /// A segment of a hash-layout group (tag 16, which also names the group): written by a
    /// flush at epoch 1, merged by the group's GC into the group's main segment (epoch 2
    /// and later). Never collected by per-file value GC.
    Hash = 3,
}

impl ValueFileOrigin {
    /// The epoch the file was born with: 0 for a log, 1 for a sorted file placement wrote.
    pub fn birth_epoch(self) -> u32 {
        match self {
            ValueFileOrigin::Log => 0,
            ValueFileOrigin::Transient | ValueFileOrigin::Placed | ValueFileOrigin::Hash => 1,
        }
    }
}

/// An SSTable as the manifest describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    /// Level, 0-based.
    pub level: usize,
    /// File number.
    pub number: u64,
    /// Size in bytes.
    pub file_size: u64,
    /// Smallest internal key.
    pub smallest: Vec<u8>,
    /// Largest internal key.
    pub largest: Vec<u8>,
    /// Smallest sequence number in the table.
    pub smallest_seq: SeqNo,
    /// Largest sequence number in the table.
    pub largest_seq: SeqNo,
}

/// A value file as the manifest describes it when it becomes wholly flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueFileRecord {
    /// File number (stable across GC rewrites).
    pub number: u64,
    /// Current epoch (0 for the original log file).
    pub epoch: u32,
    /// File size in bytes.
    pub total_bytes: u64,
    /// Bytes of separated entries.
    pub separated_bytes: u64,
    /// Number of separated entries.
    pub separated_count: u64,
}

/// Drops that one flush or compaction recorded against one value file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropDelta {
    /// The value file.
    pub number: u64,
    /// The epoch of the value file the drops were counted against.
    pub epoch: u32,
    /// Entries dropped.
    pub count: u64,
    /// Bytes of those entries.
    pub bytes: u64,
}

/// Dead runs of one epoch of a value file whose storage one value GC run freed by punching
/// holes (`docs/format/manifest.md`, tag 12).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PunchDelta {
    /// The value file.
    pub number: u64,
    /// The epoch the runs are in.
    pub epoch: u32,
    /// Each run's extent `[start, end)`: the whole records it covers, in file order, not
    /// overlapping. Only the whole blocks inside are freed; the rest reads as before or as
    /// zeros, so scanners skip the extent.
    pub runs: Vec<(u64, u64)>,
    /// Separated records inside the runs (all dead).
    pub records: u64,
    /// Their bytes.
    pub record_bytes: u64,
    /// Bytes freed: the whole blocks inside the runs.
    pub punched_bytes: u64,
}

/// One atomic change to the database's file set and counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionEdit {
    /// The next file number to hand out.
    pub next_file_number: Option<u64>,
    /// The largest sequence number known durable (in SSTables or in the synced log).
    pub last_sequence: Option<SeqNo>,
    /// Everything in the value log before this position is in SSTables.
    pub flushed_point: Option<(u64, u64)>,
    /// The largest sequence number at or before the flushed point.
    pub flushed_sequence: Option<SeqNo>,
    /// SSTables added.
    pub added_tables: Vec<TableRecord>,
    /// SSTables removed: `(level, number)`.
    pub deleted_tables: Vec<(usize, u64)>,
    /// Value files that became wholly flushed.
    pub added_value_files: Vec<ValueFileRecord>,
    /// Drops recorded by this edit's flush or compaction.
    pub value_file_drops: Vec<DropDelta>,
    /// Value files removed.
    pub deleted_value_files: Vec<u64>,
    /// Compaction pointers: `(level, internal key)`.
    pub compact_pointers: Vec<(usize, Vec<u8>)>,
    /// The cumulative counters `(id, value)` as of this edit (ids of [`CounterId`] and any
    /// unknown ones read from a newer manifest), sorted by id.
    pub counters: Option<Vec<(u64, u64)>>,
    /// Dead runs freed by punching holes.
    pub value_file_punches: Vec<PunchDelta>,
    /// Who wrote value files added by this edit, when not the value log.
    pub value_file_origins: Vec<(u64, ValueFileOrigin)>,
    /// From this edit on, drops of log records go unrecorded ([`Tag::DropsUntracked`]).
    pub drops_untracked: bool,
    /// The hash layout's number of groups ([`Tag::HashLayout`]).
    pub hash_groups: Option<u32>,
    /// Value files added by this edit that are hash-layout segments: `(number, group)`.
    pub hash_segments: Vec<(u64, u32)>,
    /// Of those, the cold segments ([`Tag::HashColdSegment`]).
    pub hash_cold_segments: Vec<u64>,
}

impl VersionEdit {
    /// Encodes the edit.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        let tag = |b: &mut Vec<u8>, t: Tag| put_varint(b, t as u64);
        if let Some(n) = self.next_file_number {
            tag(&mut b, Tag::NextFileNumber);
            put_varint(&mut b, n);
        }
        if let Some(s) = self.last_sequence {
            tag(&mut b, Tag::LastSequence);
            put_varint(&mut b, s);
        }
        if let Some((file, offset)) = self.flushed_point {
            tag(&mut b, Tag::FlushedPoint);
            put_varint(&mut b, file);
            put_varint(&mut b, offset);
        }
        if let Some(s) = self.flushed_sequence {
            tag(&mut b, Tag::FlushedSequence);
            put_varint(&mut b, s);
        }
        for t in &self.added_tables {
            tag(&mut b, Tag::AddTable);
            put_varint(&mut b, t.level as u64);
            put_varint(&mut b, t.number);
            put_varint(&mut b, t.file_size);
            put_len_prefixed(&mut b, &t.smallest);
            put_len_prefixed(&mut b, &t.largest);
            put_varint(&mut b, t.smallest_seq);
            put_varint(&mut b, t.largest_seq);
        }
        for &(level, number) in &self.deleted_tables {
            tag(&mut b, Tag::DeleteTable);
            put_varint(&mut b, level as u64);
            put_varint(&mut b, number);
        }
        for v in &self.added_value_files {
            tag(&mut b, Tag::AddValueFile);
            put_varint(&mut b, v.number);
            put_varint(&mut b, u64::from(v.epoch));
            put_varint(&mut b, v.total_bytes);
            put_varint(&mut b, v.separated_bytes);
            put_varint(&mut b, v.separated_count);
        }
        for d in &self.value_file_drops {
            tag(&mut b, Tag::ValueFileDrops);
            put_varint(&mut b, d.number);
            put_varint(&mut b, u64::from(d.epoch));
            put_varint(&mut b, d.count);
            put_varint(&mut b, d.bytes);
        }
        for &n in &self.deleted_value_files {
            tag(&mut b, Tag::DeleteValueFile);
            put_varint(&mut b, n);
        }
        for (level, key) in &self.compact_pointers {
            tag(&mut b, Tag::CompactPointer);
            put_varint(&mut b, *level as u64);
            put_len_prefixed(&mut b, key);
        }
        for p in &self.value_file_punches {
            tag(&mut b, Tag::PunchedRuns);
            put_varint(&mut b, p.number);
            put_varint(&mut b, u64::from(p.epoch));
            put_varint(&mut b, p.records);
            put_varint(&mut b, p.record_bytes);
            put_varint(&mut b, p.punched_bytes);
            put_varint(&mut b, p.runs.len() as u64);
            for &(start, end) in &p.runs {
                put_varint(&mut b, start);
                put_varint(&mut b, end);
            }
        }
        for &(number, origin) in &self.value_file_origins {
            tag(&mut b, Tag::ValueFileOrigin);
            put_varint(&mut b, number);
            put_varint(&mut b, origin as u64);
        }
        if self.drops_untracked {
            tag(&mut b, Tag::DropsUntracked);
            put_varint(&mut b, 1);
        }
        if let Some(groups) = self.hash_groups {
            tag(&mut b, Tag::HashLayout);
            put_varint(&mut b, u64::from(groups));
        }
        for &(number, group) in &self.hash_segments {
            tag(&mut b, Tag::HashSegment);
            put_varint(&mut b, number);
            put_varint(&mut b, u64::from(group));
        }
        for &number in &self.hash_cold_segments {
            tag(&mut b, Tag::HashColdSegment);
            put_varint(&mut b, number);
        }
        if let Some(counters) = &self.counters {
            tag(&mut b, Tag::Counters);
            put_varint(&mut b, counters.len() as u64);
            for &(id, value) in counters {
                put_varint(&mut b, id);
                put_varint(&mut b, value);
            }
        }
        b
    }

    /// Decodes an edit.
    pub fn decode(buf: &[u8]) -> Result<VersionEdit, DecodeError> {
        let mut d = Decoder::new(buf);
        let mut e = VersionEdit::default();
        let level = |d: &mut Decoder<'_>| d.varint_len(63, "level");
        while !d.is_empty() {
            let at = d.pos();
            let raw = d.varint("edit tag")?;
            let tag = Tag::try_from(raw)
                .map_err(|t| DecodeError::new(at, format!("unknown version edit tag {t}")))?;
            match tag {
                Tag::NextFileNumber => e.next_file_number = Some(d.varint("next file number")?),
                Tag::LastSequence => e.last_sequence = Some(d.varint("last sequence")?),
                Tag::FlushedPoint => {
                    e.flushed_point = Some((d.varint("flushed file")?, d.varint("flushed offset")?))
                }
                Tag::FlushedSequence => e.flushed_sequence = Some(d.varint("flushed sequence")?),
                Tag::AddTable => e.added_tables.push(TableRecord {
                    level: level(&mut d)?,
                    number: d.varint("table number")?,
                    file_size: d.varint("table size")?,
                    smallest: d.len_prefixed("smallest key")?.to_vec(),
                    largest: d.len_prefixed("largest key")?.to_vec(),
                    smallest_seq: d.varint("smallest seq")?,
                    largest_seq: d.varint("largest seq")?,
                }),
                Tag::DeleteTable => e
                    .deleted_tables
                    .push((level(&mut d)?, d.varint("table number")?)),
                Tag::AddValueFile => e.added_value_files.push(ValueFileRecord {
                    number: d.varint("value file number")?,
                    epoch: d.varint_u32("epoch")?,
                    total_bytes: d.varint("total bytes")?,
                    separated_bytes: d.varint("separated bytes")?,
                    separated_count: d.varint("separated count")?,
                }),
                Tag::ValueFileDrops => e.value_file_drops.push(DropDelta {
                    number: d.varint("value file number")?,
                    epoch: d.varint_u32("epoch")?,
                    count: d.varint("dropped count")?,
                    bytes: d.varint("dropped bytes")?,
                }),
                Tag::DeleteValueFile => e.deleted_value_files.push(d.varint("value file number")?),
                Tag::CompactPointer => e
                    .compact_pointers
                    .push((level(&mut d)?, d.len_prefixed("compact pointer")?.to_vec())),
                Tag::Counters => {
                    // Each pair takes at least two bytes: a bound on the count.
                    let n = d.varint_len(d.remaining() / 2, "counter count")?;
                    let mut counters = Vec::with_capacity(n);
                    for _ in 0..n {
                        counters.push((d.varint("counter id")?, d.varint("counter value")?));
                    }
                    e.counters = Some(counters);
                }
                Tag::PunchedRuns => e.value_file_punches.push(decode_punch(&mut d)?),
                Tag::DropsUntracked => {
                    let at = d.pos();
                    match d.varint("drops untracked flag")? {
                        1 => e.drops_untracked = true,
                        v => {
                            return Err(DecodeError::new(
                                at,
                                format!("drops untracked flag {v} is not 1"),
                            ));
                        }
                    }
                }
                Tag::HashLayout => {
                    let at = d.pos();
                    match d.varint_u32("hash groups")? {
                        0 => return Err(DecodeError::new(at, "a hash layout of 0 groups")),
                        g => e.hash_groups = Some(g),
                    }
                }
                Tag::HashSegment => {
                    let number = d.varint("value file number")?;
                    e.hash_segments.push((number, d.varint_u32("hash group")?));
                }
                Tag::HashColdSegment => {
                    e.hash_cold_segments.push(d.varint("value file number")?);
                }
                Tag::ValueFileOrigin => {
                    let number = d.varint("value file number")?;
                    let at = d.pos();
                    let origin = match d.varint("value file origin")? {
                        1 => ValueFileOrigin::Transient,
                        2 => ValueFileOrigin::Placed,
                        o => {
                            return Err(DecodeError::new(
                                at,
                                format!("unknown value file origin {o}"),
                            ));
                        }
                    };
                    e.value_file_origins.push((number, origin));
                }
            }
        }
        Ok(e)
    }
}

/// The body of a [`Tag::PunchedRuns`] field.
fn decode_punch(d: &mut Decoder<'_>) -> Result<PunchDelta, DecodeError> {
    let mut p = PunchDelta {
        number: d.varint("value file number")?,
        epoch: d.varint_u32("epoch")?,
        records: d.varint("punched records")?,
        record_bytes: d.varint("punched record bytes")?,
        punched_bytes: d.varint("punched bytes")?,
        runs: Vec::new(),
    };
    let at = d.pos();
    // Each run takes at least two bytes: a bound on the count.
    let n = d.varint_len(d.remaining() / 2, "punched run count")?;
    for _ in 0..n {
        let (start, end) = (d.varint("run start")?, d.varint("run end")?);
        if start >= end || p.runs.last().is_some_and(|&(_, e)| start < e) {
            return Err(DecodeError::new(
                at,
                format!("punched runs out of order or empty at [{start}, {end})"),
            ));
        }
        p.runs.push((start, end));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> VersionEdit {
        VersionEdit {
            next_file_number: Some(12),
            last_sequence: Some(9000),
            flushed_point: Some((7, 4096)),
            flushed_sequence: Some(8990),
            added_tables: vec![TableRecord {
                level: 1,
                number: 10,
                file_size: 2048,
                smallest: b"a\x01\0\0\0\0\0\0\0".to_vec(),
                largest: b"z\x01\0\0\0\0\0\0\0".to_vec(),
                smallest_seq: 1,
                largest_seq: 99,
            }],
            deleted_tables: vec![(0, 3), (1, 4)],
            added_value_files: vec![ValueFileRecord {
                number: 5,
                epoch: 0,
                total_bytes: 1 << 20,
                separated_bytes: 900_000,
                separated_count: 870,
            }],
            value_file_drops: vec![DropDelta {
                number: 5,
                epoch: 0,
                count: 3,
                bytes: 3100,
            }],
            deleted_value_files: vec![2],
            compact_pointers: vec![(2, b"m".to_vec())],
            counters: Some(vec![(CounterId::UserBytes as u64, 1 << 40), (99, 7)]),
            value_file_punches: vec![PunchDelta {
                number: 5,
                epoch: 0,
                runs: vec![(40, 9000), (12_000, 20_100)],
                records: 9,
                record_bytes: 17_000,
                punched_bytes: 12_288,
            }],
            value_file_origins: vec![
                (14, ValueFileOrigin::Transient),
                (15, ValueFileOrigin::Placed),
            ],
            drops_untracked: true,
            hash_groups: Some(32),
            hash_segments: vec![(16, 5), (17, 31)],
            hash_cold_segments: vec![17],
        }
    }

    #[test]
    fn round_trip() {
        let e = sample();
        assert_eq!(VersionEdit::decode(&e.encode()), Ok(e));
        assert_eq!(VersionEdit::decode(&[]), Ok(VersionEdit::default()));
    }

    #[test]
    fn unknown_tag_and_truncation_are_errors() {
        assert!(VersionEdit::decode(&[99]).is_err());
        let enc = sample().encode();
        for cut in 1..enc.len() {
            // Every strict prefix either fails or decodes to something different.
            if let Ok(e) = VersionEdit::decode(&enc[..cut]) {
                assert_ne!(e, sample());
            }
        }
    }

    #[test]
    fn punched_runs_must_be_ordered_and_non_empty() {
        for runs in [
            vec![(10, 10)],
            vec![(10, 20), (15, 30)],
            vec![(30, 40), (10, 20)],
        ] {
            let e = VersionEdit {
                value_file_punches: vec![PunchDelta {
                    number: 1,
                    epoch: 0,
                    runs,
                    records: 1,
                    record_bytes: 1,
                    punched_bytes: 0,
                }],
                ..VersionEdit::default()
            };
            assert!(VersionEdit::decode(&e.encode()).is_err());
        }
    }

    #[test]
    fn unknown_value_file_origin_is_an_error() {
        let mut enc = Vec::new();
        put_varint(&mut enc, Tag::ValueFileOrigin as u64);
        put_varint(&mut enc, 4);
        put_varint(&mut enc, 0);
        assert!(VersionEdit::decode(&enc).is_err());
        assert_eq!(ValueFileOrigin::Transient.birth_epoch(), 1);
        assert_eq!(ValueFileOrigin::Log.birth_epoch(), 0);
        // A hash segment's origin comes with its group (tag 16), never through tag 13.
        let mut enc = Vec::new();
        put_varint(&mut enc, Tag::ValueFileOrigin as u64);
        put_varint(&mut enc, 4);
        put_varint(&mut enc, ValueFileOrigin::Hash as u64);
        assert!(VersionEdit::decode(&enc).is_err());
    }

    #[test]
    fn a_hash_layout_has_groups() {
        let mut enc = Vec::new();
        put_varint(&mut enc, Tag::HashLayout as u64);
        put_varint(&mut enc, 0);
        assert!(VersionEdit::decode(&enc).is_err());
        assert_eq!(ValueFileOrigin::Hash.birth_epoch(), 1);
    }

    #[test]
    fn drops_untracked_flag_must_be_one() {
        for (v, ok) in [(0, false), (1, true), (2, false)] {
            let mut enc = Vec::new();
            put_varint(&mut enc, Tag::DropsUntracked as u64);
            put_varint(&mut enc, v);
            assert_eq!(VersionEdit::decode(&enc).is_ok(), ok, "flag {v}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes: Vec<u8>) {
            let _ = VersionEdit::decode(&bytes);
        }
    }
}

//! Flushing a frozen memtable into an L0 SSTable.

use super::{DbInner, SuperVersion, lock, write};
use crate::compaction::filter::{Decision, DropFilter};
use crate::compaction::part::record_drop;
use crate::error::IoContext;
use crate::event_log::event;
use crate::format::handle::ValueHandle;
use crate::format::manifest::{TableRecord, ValueFileOrigin, ValueFileRecord, VersionEdit};
use crate::format::names::{FileType, file_path, value_file_path};
use crate::iter::{InternalIterator, MergingIterator};
use crate::key::{
    EntryKind, ParsedKey, append_expiring_value, internal_key, put_kind, split_expiry,
};
use crate::stats::Counters;
use crate::table::{TableBuilder, TableOptions};
use crate::vlog::{DropIndex, DropWriter, SvTableWriter};

/// The drop lock's guard (`DropIndex::lock`).
pub(crate) type DropLock<'a> =
    std::sync::MutexGuard<'a, std::collections::HashMap<u64, crate::vlog::FileDrops>>;
use crate::options::ValueLayout;
use crate::placement::Class;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The SSTable options the database's options ask for.
pub(crate) fn table_options(inner: &DbInner) -> TableOptions {
    inner.opts.table_options(0)
}

/// Flushes the oldest frozen memtable, if any.
pub(crate) fn flush_oldest(inner: &DbInner) -> Result<()> {
    if inner.opts.value_layout == ValueLayout::Hash {
        // Before taking a version: one held while waiting would keep the segments that
        // the GC it waits for merges away on disk.
        super::group_gc::wait_for_room(inner)?;
    }
    let sv = inner.super_version();
    let Some(imm) = sv.imms.last().cloned() else {
        return Ok(());
    };
    let frozen_at = imm
        .frozen_at()
        .ok_or_else(|| Error::InvalidArgument("memtable queued for flush was not frozen".into()))?;
    let snapshots = inner.snapshot_seqs();
    let mut filter = DropFilter::new(snapshots.clone()).expiring_at(inner.opts.clock.now_millis());
    let mut tombstone = Vec::new();
    let mut drops = DropWriter::new();
    let number = lock(&inner.versions).new_file_number();
    let path = file_path(&inner.dir, FileType::Table, number);
    let mut builder: Option<TableBuilder> = None;
    let mut transient: Option<Sorted> = None;
    // Hash layout: each group's segment of this flush, made when the group is first met.
    let hash_groups =
        (inner.opts.value_layout == ValueLayout::Hash).then_some(inner.opts.hash_groups);
    let mut segments: BTreeMap<u32, Sorted> = BTreeMap::new();
    let mut sample = super::group_gc::FlushSample::new(imm.len());
    let placement = inner.opts.placement();
    // The memtable's range deletions join it as the point tombstones they stand for.
    let mut range_tombstones = None;
    let mut it: Box<dyn InternalIterator> =
        match super::range_expand::expansion(&imm, &sv.version, &snapshots) {
            Some((tombstones, made)) => {
                range_tombstones = Some(made);
                Box::new(MergingIterator::new(vec![
                    Box::new(imm.iter()),
                    Box::new(tombstones),
                ]))
            }
            None => Box::new(imm.iter()),
        };
    it.seek_to_first()?;
    while it.valid() {
        let decision = filter.decide(it.key(), it.value(), |_| false);
        if decision == Decision::Expire {
            // Its value goes; a tombstone at its sequence takes its place.
            record_drop(&mut drops, it.key(), it.value())?;
            let p = ParsedKey::parse(it.key());
            tombstone = internal_key(p.user_key, p.seq, EntryKind::Delete as u8);
        }
        let (key, value) = match decision {
            Decision::Expire => (&tombstone[..], &[][..]),
            _ => (it.key(), it.value()),
        };
        match decision {
            Decision::Keep | Decision::Expire => {
                let b = match builder.as_mut() {
                    Some(b) => b,
                    None => {
                        let file = inner.fs.create(&path).ctx("create", &path)?;
                        builder.insert(TableBuilder::new(file, path.clone(), &table_options(inner)))
                    }
                };
                let p = ParsedKey::parse(key);
                let kind = p.entry_kind();
                if let Some(groups) = hash_groups
                    && matches!(kind, Some(EntryKind::Inline | EntryKind::Delete))
                {
                    // Every version of a key reaches its group: a large value as a record
                    // (the table holds its handle), anything else as a tombstone, so that
                    // the group's GC knows the older records dead (`gc::group`).
                    let group = crate::hash_layout::group_of(p.user_key, groups);
                    let seg = match segments.entry(group) {
                        std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                        std::collections::btree_map::Entry::Vacant(e) => {
                            // Buffers of all groups together stay near one memtable.
                            let chunk = (inner.opts.memtable_size / groups.max(1) as usize)
                                .clamp(16 << 10, SEGMENT_CHUNK);
                            e.insert(Sorted::create(inner, ValueFileOrigin::Hash, chunk)?)
                        }
                    };
                    // An expiring put stays inline: the groups' segments hold no expiry
                    // times, so a group's GC could not tell its record dead once it expires;
                    // in the tree, the compaction that drops it takes its value along.
                    let large = kind == Some(EntryKind::Inline)
                        && !p.expires()
                        && placement.class(p.user_key.len(), payload_len(&p, value))
                            == Class::Large;
                    sample.offer(group, p.user_key);
                    if large {
                        let (ikey, handle) = seg.add(&p, value)?;
                        b.add(&ikey, &handle)?;
                    } else {
                        seg.writer.add_tombstone(p.user_key, p.seq)?;
                        b.add(key, value)?;
                    }
                } else if kind == Some(EntryKind::Inline)
                    && placement.flush_moves(p.user_key.len(), payload_len(&p, value))
                {
                    // A medium pair: its value goes into the transient file, its handle
                    // into the table (Parallax).
                    let t = match transient.as_mut() {
                        Some(t) => t,
                        None => transient.insert(Sorted::create(
                            inner,
                            ValueFileOrigin::Transient,
                            TRANSIENT_CHUNK,
                        )?),
                    };
                    let (ikey, handle) = t.add(&p, value)?;
                    b.add(&ikey, &handle)?;
                } else {
                    b.add(key, value)?;
                }
            }
            Decision::Drop => record_drop(&mut drops, it.key(), it.value())?,
            Decision::Duplicate => {}
        }
        it.next()?;
    }
    // IMPORTANT: the log is durable up to the freeze position before anything that refers
    // to its records is complete on disk: the table (it holds handles into the log; until
    // its footer is written below it is no table at all, and `repair` adopts one that no
    // manifest names yet, so a table synced before the log would leave handles into a tail
    // a power loss can take), the drop records, and the edit that makes the position the
    // flushed point (recovery no longer replays the log before it). This thread, not the
    // writer, waits for that sync; the log thread may have done it while the table was
    // built. Unsynced files of inline entries only before the position need nothing
    // (`LogSync::sync_for_flush`): the edit deletes them.
    inner.log_sync.sync_for_flush(frozen_at)?;
    let frozen_seq = imm.frozen_seq().unwrap_or(0);
    let mut edit = VersionEdit {
        flushed_point: Some((frozen_at.file, frozen_at.offset)),
        last_sequence: Some(frozen_seq),
        flushed_sequence: Some(frozen_seq),
        ..VersionEdit::default()
    };
    let mut table_bytes = 0;
    let mut transient_bytes = 0;
    if let Some(t) = transient {
        let record = t.finish()?;
        transient_bytes = record.total_bytes;
        edit.value_file_origins
            .push((record.number, ValueFileOrigin::Transient));
        edit.added_value_files.push(record);
    }
    let mut segment_bytes = 0;
    // What each segment kills, estimated: recorded for the reserved pool once installed.
    let killed = if segments.is_empty() {
        BTreeMap::new()
    } else {
        sample.estimate(&sv.version)
    };
    let mut segment_kills = Vec::with_capacity(segments.len());
    for (group, seg) in segments {
        let record = seg.finish()?;
        segment_bytes += record.total_bytes;
        segment_kills.push((
            record.number,
            record.total_bytes,
            killed.get(&group).copied().unwrap_or(0),
        ));
        edit.hash_segments.push((record.number, group));
        edit.added_value_files.push(record);
    }
    if let Some(b) = builder {
        let summary = b.finish()?;
        // IMPORTANT: the table's (and the transient file's) directory entry is durable
        // before the manifest names it.
        inner
            .fs
            .sync_dir(&inner.dir)
            .ctx("sync directory", &inner.dir)?;
        table_bytes = summary.file_size;
        edit.added_tables.push(TableRecord {
            level: 0,
            number,
            file_size: summary.file_size,
            smallest: summary.smallest,
            largest: summary.largest,
            smallest_seq: summary.properties.smallest_seq,
            largest_seq: summary.properties.largest_seq,
        });
    }
    // A flush requires no epoch, so its drops are always written.
    let mut held = inner.drop_index.lock();
    persist_drops(inner, &mut held, &mut drops, &mut edit)?;

    let mut versions = lock(&inner.versions);
    let current = Arc::clone(versions.current());
    for (&n, f) in &current.state.value_files {
        if f.sealed.is_none()
            && n < frozen_at.file
            && let Some(file) = current.value_files.get(&n)
        {
            edit.added_value_files.push(ValueFileRecord {
                number: n,
                epoch: 0,
                total_bytes: file.total_bytes(),
                separated_bytes: file.separated_bytes(),
                separated_count: file.separated_count(),
            });
        }
    }
    let version = versions.log_and_apply(edit)?;
    if !segment_kills.is_empty() {
        super::group_gc::record_flush(inner, &segment_kills);
    }
    // Sealed log files the edit deleted before the log thread synced them are never synced:
    // the operating system can drop their pages unwritten.
    let forgotten = inner
        .log_sync
        .forget_deleted(|n| version.state.value_files.contains_key(&n));
    Counters::add(&inner.counters.log_files_deleted_unsynced, forgotten.files);
    Counters::add(&inner.counters.log_bytes_deleted_unsynced, forgotten.bytes);
    inner.update_super_version(|sv| SuperVersion {
        mem: Arc::clone(&sv.mem),
        imms: sv
            .imms
            .iter()
            .filter(|m| !Arc::ptr_eq(m, &imm))
            .cloned()
            .collect(),
        version,
    });
    drop(versions);
    drop(held);
    event!(
        inner.events,
        Info,
        "flush: table of {table_bytes} bytes, {transient_bytes} bytes of transient files, \
         {segment_bytes} bytes of hash segments"
    );
    Counters::add(&inner.counters.flushes, 1);
    Counters::add(&inner.counters.expired_entries, filter.expired());
    if let Some(made) = range_tombstones {
        Counters::add(
            &inner.counters.range_deletion_tombstones,
            made.load(std::sync::atomic::Ordering::Relaxed),
        );
    }
    Counters::add(&inner.counters.flush_bytes, table_bytes);
    Counters::add(&inner.counters.transient_bytes_written, transient_bytes);
    Counters::add(&inner.counters.hash_segment_bytes_written, segment_bytes);
    Ok(())
}

/// Bytes a transient file buffers before appending.
const TRANSIENT_CHUNK: usize = 1 << 20;

/// Bytes a hash segment buffers before appending at most: a flush writes up to
/// `hash_groups` of them at once.
const SEGMENT_CHUNK: usize = 256 << 10;

/// A sorted value file a flush writes (an SVTable born at epoch 1,
/// `docs/format/svtable.md`): the memtable's medium values (a *transient* file), or in the
/// hash layout one group's values and tombstones (a *segment*).
struct Sorted {
    number: u64,
    origin: ValueFileOrigin,
    writer: SvTableWriter,
}

impl Sorted {
    fn create(inner: &DbInner, origin: ValueFileOrigin, chunk: usize) -> Result<Sorted> {
        let number = lock(&inner.versions).new_file_number();
        let epoch = origin.birth_epoch();
        let path = value_file_path(&inner.dir, number, epoch);
        let file = inner.fs.create(&path).ctx("create", &path)?;
        let mut writer = SvTableWriter::with_chunk(file, path, number, epoch, chunk);
        let o = &inner.opts;
        writer = match origin {
            // A segment holds large values, a transient file medium ones: each class
            // compressed as its option says, never below its class.
            ValueFileOrigin::Hash => writer
                .into_segment()
                .compressing(o.value_compression, o.inline_threshold),
            _ => writer.compressing(o.medium_value_compression, o.medium_threshold),
        };
        Ok(Sorted {
            number,
            origin,
            writer,
        })
    }

    /// Writes `entry`'s value and returns the internal key and encoded handle the table
    /// holds instead (with the entry's expiry time, if it has one).
    fn add(&mut self, entry: &ParsedKey<'_>, value: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        let (expires_at, payload) = split_expiry(entry.kind, value).map_err(|_| {
            Error::InvalidArgument("an expiring entry too short for its expiry time".into())
        })?;
        let (offset, len) = self.writer.add(entry.user_key, entry.seq, payload)?;
        let handle = ValueHandle {
            file: self.number,
            epoch: self.origin.birth_epoch(),
            offset,
            len,
        };
        let ikey = internal_key(
            entry.user_key,
            entry.seq,
            put_kind(EntryKind::Handle, expires_at),
        );
        let mut encoded = Vec::with_capacity(32);
        append_expiring_value(&mut encoded, expires_at, &handle.encode());
        Ok((ikey, encoded))
    }

    /// Finishes and syncs the file (its directory entry is synced with the table's) and
    /// returns its manifest record.
    fn finish(self) -> Result<ValueFileRecord> {
        let s = self.writer.finish()?;
        Ok(ValueFileRecord {
            number: self.number,
            epoch: self.origin.birth_epoch(),
            total_bytes: s.file_size,
            separated_bytes: s.entry_bytes,
            separated_count: s.entry_count,
        })
    }
}

/// The length of a put's value, its expiry time set aside.
fn payload_len(p: &ParsedKey<'_>, value: &[u8]) -> usize {
    split_expiry(p.kind, value).map_or(value.len(), |(_, v)| v.len())
}

/// Makes the drop records durable and adds their counts to `edit`. `false`, with nothing
/// written, if a value file the drops require at an epoch has left it
/// (`DropWriter::require_epoch`): the caller discards its work.
///
/// `held` is the drop lock: the caller keeps it until its edit is logged, so drop blocks
/// are counted in the order they were appended (`DropIndex::load` cuts uncounted ones).
pub(crate) fn persist_drops(
    inner: &DbInner,
    held: &mut DropLock<'_>,
    drops: &mut DropWriter,
    edit: &mut VersionEdit,
) -> Result<bool> {
    // Vlog mode judges log records by LSM lookup and records none of their drops (the
    // manifest says so since this open). Transient files still need theirs: placement
    // frees them whole when every value is merged or dropped. In the hash layout, a
    // group's GC judges its records from the group alone and never reads drops; a handle
    // may also name a segment it merged away. Drops of the log (none: it holds no
    // separated record) and of placed files are kept.
    let lookup_mode = !inner.opts.gc_mode.records_drops();
    let hash_layout = inner.opts.value_layout == ValueLayout::Hash;
    if lookup_mode || hash_layout {
        let sv = inner.super_version();
        drops.retain_files(|n| {
            sv.version.state.value_files.get(&n).is_some_and(|f| {
                (!lookup_mode || f.origin == ValueFileOrigin::Transient)
                    && (!hash_layout || f.origin != ValueFileOrigin::Hash)
            })
        });
    }
    if drops.is_empty() {
        return Ok(true);
    }
    // IMPORTANT: drop records are durable before the edit that counts them. The epochs
    // are read under the drop lock, which value GC holds while it installs a new epoch.
    let Some((deltas, written)) =
        DropIndex::persist_locked(held, inner.fs.as_ref(), &inner.dir, drops, |n| {
            inner.super_version().version.value_files.get(&n).cloned()
        })?
    else {
        return Ok(false);
    };
    Counters::add(
        &inner.counters.drop_records,
        deltas.iter().map(|d| d.count).sum(),
    );
    Counters::add(&inner.counters.drop_file_bytes, written);
    edit.value_file_drops.extend(deltas);
    Ok(true)
}

/// Freezes the active memtable (if it holds anything) and waits until every frozen
/// memtable is flushed.
pub(crate) fn flush_all(inner: &DbInner) -> Result<()> {
    {
        let mut ws = lock(&inner.write.state);
        inner.check_bg_error()?;
        if !ws.mem.is_empty() {
            write::switch_memtable(inner, &mut ws)?;
        }
    }
    loop {
        inner.check_bg_error()?;
        if inner.super_version().imms.is_empty() {
            return Ok(());
        }
        inner.bg.wait_for_change(Duration::from_millis(50));
    }
}

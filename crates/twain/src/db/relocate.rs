//! Value GC in lsm-lookup mode (WiscKey), kept as the baseline the drop-records mode is
//! compared with: every record of the file is looked up in the LSM-tree; the records that
//! are still their key's newest version are appended to the head of the value log and
//! their new handles written back into the tree; then the old file is deleted.
//!
//! Unlike a drop-records run (`gc::Job`), this one is not a self-contained job: its
//! validity checks are LSM lookups and its output goes through the write path, so it lives
//! with the database. `gc::CopyAt` judges whether an entry names a record's copy.
//!
//! A record that only a live snapshot still sees cannot be written back (an old version
//! placed above newer ones would hide them), so a file holding one is left for later.

use super::value_gc::emit;
use super::{DbInner, SuperVersion, lock, write};
use crate::Result;
use crate::format::manifest::VersionEdit;
use crate::gc::{CopyAt, Job, Pace, Run, Throttle, names_copy};
use crate::key::SeqNo;
use crate::options::GcEvent;
use crate::stats::Counters;
use std::sync::Arc;

/// Bytes of records relocated per write-lock hold.
const RELOCATE_BATCH_BYTES: usize = 1 << 20;

/// Whether the newest version of `key` is the record `seq` at `at`.
pub(crate) fn newest_points_into(
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    at: CopyAt,
) -> Result<bool> {
    Ok(newest_expiry_if_points_into(sv, key, seq, at)?.is_some())
}

/// `Some(expiry time)` when the newest version of `key` is the record `seq` at `at`: a
/// relocated record keeps its expiry.
pub(crate) fn newest_expiry_if_points_into(
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    at: CopyAt,
) -> Result<Option<Option<u64>>> {
    let Some((ikey, value)) = super::read::newest_entry(sv, key)? else {
        return Ok(None);
    };
    Ok(names_copy(&ikey, &value, seq, at))
}

/// Whether a live snapshot at `snap` sees record `seq` at `at` for `key`: the entry a read
/// at `snap` finds (the same search, newest memtable first, range deletions judged) names
/// that copy.
pub(crate) fn snapshot_sees(
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    at: CopyAt,
    snap: SeqNo,
) -> Result<bool> {
    let found = super::read::find(sv, key, snap, false, false)?;
    Ok(found.is_some_and(|f| names_copy(&f.ikey, &f.value, seq, at).is_some()))
}

/// Whether a live snapshot in `snapshots` sees record `key@seq` at `at`.
fn seen_by_a_snapshot(
    inner: &DbInner,
    sv: &SuperVersion,
    (key, seq): (&[u8], SeqNo),
    at: CopyAt,
    snapshots: &[SeqNo],
) -> Result<bool> {
    for &snap in snapshots {
        Counters::add(&inner.counters.gc_lsm_lookups, 1);
        if snapshot_sees(sv, key, seq, at, snap)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Collects the job's value file the WiscKey way. `NotNow` when the file is gone or a live
/// snapshot still needs one of its records.
pub(crate) fn relocate(inner: &DbInner, job: &Job, pace: Option<&dyn Pace>) -> Result<Run> {
    let (number, epoch) = (job.file.number(), job.file.epoch());
    let mut throttle = Throttle::new(job.bytes_per_sec)
        .paced(pace)
        .until_closed(&job.closing);
    let (input, read) = job.read(&mut throttle, false)?;
    Counters::add(&inner.counters.gc_bytes_read, read);
    let input = match input {
        Ok(input) => input,
        Err(damage) => return Ok(Run::Damaged(damage)),
    };
    let records = input.records;
    let snapshots = inner.snapshot_seqs();
    let mut valid = Vec::new();
    let mut superseded = Vec::new();
    let copy = |offset| CopyAt {
        file: number,
        epoch,
        offset,
    };
    for r in records {
        let sv = inner.super_version();
        Counters::add(&inner.counters.gc_lsm_lookups, 1);
        if newest_points_into(&sv, &r.key, r.seq, copy(r.offset))? {
            valid.push(r);
            continue;
        }
        if seen_by_a_snapshot(inner, &sv, (&r.key, r.seq), copy(r.offset), &snapshots)? {
            return Ok(Run::NotNow);
        }
        superseded.push((r.key, r.seq, r.offset));
    }
    emit(
        inner,
        GcEvent::LiveRecordsRead {
            file: number,
            live: valid.len() as u64,
        },
    );
    let mut start = 0;
    while start < valid.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < valid.len() && (end == start || bytes < RELOCATE_BATCH_BYTES) {
            bytes += valid[end].key.len() + valid[end].value.len();
            end += 1;
        }
        if write::relocate(inner, (number, epoch), &valid[start..end])?.is_none() {
            // A record overwritten or deleted since the lookup, which a snapshot taken
            // meanwhile still sees: the file stays (the next run looks again).
            return Ok(Run::NotNow);
        }
        throttle.spend(bytes as u64);
        start = end;
    }
    // IMPORTANT: a snapshot taken while GC ran can still see a record that was superseded
    // by a write not yet published when GC looked (it was in the memtable, its sequence
    // not yet visible). Look again with the write lock held: every write is published, and
    // a snapshot taken later sees only what superseded the records.
    let still_seen = write::quiesced(inner, || -> Result<bool> {
        let sv = inner.super_version();
        let snapshots = inner.snapshot_seqs();
        for (key, seq, offset) in &superseded {
            if seen_by_a_snapshot(inner, &sv, (key, *seq), copy(*offset), &snapshots)? {
                return Ok(true);
            }
        }
        Ok(false)
    })?;
    if still_seen {
        return Ok(Run::NotNow);
    }
    // IMPORTANT: the relocated records and their written-back handles are durable (the
    // log replays them) before the old file can go.
    write::sync_log(inner)?;
    emit(inner, GcEvent::OutputSynced { file: number });
    let mut drops = inner.drop_index.lock();
    let mut versions = lock(&inner.versions);
    let unchanged = versions
        .current()
        .value_files
        .get(&number)
        .is_some_and(|f| f.epoch() == epoch);
    if !unchanged {
        return Ok(Run::NotNow);
    }
    let version = versions.log_and_apply(VersionEdit {
        deleted_value_files: vec![number],
        ..VersionEdit::default()
    })?;
    inner.update_super_version(|sv| SuperVersion {
        mem: Arc::clone(&sv.mem),
        imms: sv.imms.clone(),
        version,
    });
    drop(versions);
    drops.remove(&number);
    drop(drops);
    Counters::add(&inner.counters.gc_corrupt_dead_records, input.corrupt_dead);
    emit(inner, GcEvent::Installed { file: number });
    Ok(Run::Done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::handle::ValueHandle;
    use crate::fs::{Fs, MemFs};
    use crate::gc::Record;
    use crate::key::{EntryKind, ParsedKey, split_expiry};
    use crate::{Db, Options};

    /// The handle the newest version of `key` holds, and its sequence.
    fn newest_handle(db: &Db, key: &[u8]) -> (SeqNo, ValueHandle) {
        let sv = db.inner().super_version();
        let (ikey, value) = super::super::read::newest_entry(&sv, key).unwrap().unwrap();
        let p = ParsedKey::parse(&ikey);
        let (_, encoded) = split_expiry(p.kind, &value).unwrap();
        (p.seq, ValueHandle::decode(encoded).unwrap())
    }

    /// A database holding one separated version of `k` in its head log, on `fs`; the
    /// version's sequence and handle.
    fn one_version(fs: &Arc<dyn Fs>) -> (Db, SeqNo, ValueHandle) {
        let opts = Options::default()
            .fs(Arc::clone(fs))
            .gc_enabled(false)
            .inline_threshold(0);
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        db.put("k", vec![b'v'; 1000]).unwrap();
        let (seq, h) = newest_handle(&db, b"k");
        (db, seq, h)
    }

    /// The record of that version at the copy `h` names.
    fn copy_at(seq: SeqNo, h: &ValueHandle) -> Record {
        Record {
            key: b"k".to_vec(),
            seq,
            value: vec![b'v'; 1000],
            compressed: false,
            len: h.len,
            offset: h.offset,
        }
    }

    /// The kill loop's case: one version with two copies in one log (two relocations of
    /// it). Judged by key and sequence alone, both copies were live and both were
    /// relocated again, into one record. Only the copy at the offset the tree's handle
    /// names is live; a relocation out of a file numbered at or above the head starts a
    /// new log.
    #[test]
    fn only_the_copy_the_tree_names_is_relocated() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let (db, seq, first) = one_version(&fs);
        let file = (first.file, first.epoch);
        let moved = write::relocate(db.inner(), file, &[copy_at(seq, &first)]).unwrap();
        assert_eq!(moved, Some(1));
        let (_, second) = newest_handle(&db, b"k");
        assert!(second.file > first.file, "out of the head: a new log");
        // The first copy is garbage now: it is not moved again.
        let again = write::relocate(db.inner(), file, &[copy_at(seq, &first)]).unwrap();
        assert_eq!(again, Some(0));
        assert_eq!(newest_handle(&db, b"k").1, second);
        let sv = db.inner().super_version();
        let at = |h: &ValueHandle, offset: u64| CopyAt {
            file: h.file,
            epoch: h.epoch,
            offset,
        };
        // Another copy in the same file, at another offset, is not the one named.
        let elsewhere = at(&second, second.offset + 1);
        assert!(!newest_points_into(&sv, b"k", seq, elsewhere).unwrap());
        assert!(!snapshot_sees(&sv, b"k", seq, elsewhere, seq).unwrap());
        assert!(newest_points_into(&sv, b"k", seq, at(&second, second.offset)).unwrap());
        assert!(snapshot_sees(&sv, b"k", seq, at(&second, second.offset), seq).unwrap());
        // An older epoch's handle names the version by key and sequence.
        let later = CopyAt {
            epoch: 1,
            ..elsewhere
        };
        assert!(newest_points_into(&sv, b"k", seq, later).unwrap());
        assert!(!snapshot_sees(&sv, b"k", seq, at(&first, first.offset), seq).unwrap());
        assert_eq!(db.get("k").unwrap().as_deref(), Some(&[b'v'; 1000][..]));
    }

    /// A snapshot sees what a read at its sequence finds: the active memtable before the
    /// frozen ones, which hold only older versions. Searched the other way, an older
    /// version in a frozen memtable hid the record the snapshot sees, and the record was
    /// judged dead.
    #[test]
    fn a_snapshot_sees_the_active_memtable_first() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let (db, seq, h) = one_version(&fs);
        let older = crate::key::internal_key(b"k", seq - 1, EntryKind::Inline as u8);
        let imm = crate::memtable::Memtable::new(u64::MAX);
        imm.insert(&older, b"old");
        let live = db.inner().super_version();
        let sv = SuperVersion {
            mem: Arc::clone(&live.mem),
            imms: vec![Arc::new(imm)],
            version: Arc::clone(&live.version),
        };
        let at = CopyAt {
            file: h.file,
            epoch: h.epoch,
            offset: h.offset,
        };
        assert!(snapshot_sees(&sv, b"k", seq, at, seq).unwrap());
        assert!(!snapshot_sees(&sv, b"k", seq, at, seq - 1).unwrap());
    }

    /// The kill loop's second case: a version relocated into the head log, then moved out
    /// of it (its copy there dropped), then relocated again. Beside its dropped copy,
    /// under the same sequence number, the new copy would be dead to drop-records GC and
    /// hole punching: it goes to a new log instead.
    #[test]
    fn a_version_never_lands_beside_its_dropped_copy() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let opts = Options::default()
            .fs(Arc::clone(&fs))
            .gc_enabled(false)
            .inline_threshold(0)
            .value_file_size(4 << 10);
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        db.put("k", vec![b'v'; 1000]).unwrap();
        let (seq, first) = newest_handle(&db, b"k");
        // The log rolls: the version's file is below the head now.
        db.put("filler", vec![b'f'; 8 << 10]).unwrap();
        db.put("roll", vec![b'r'; 1000]).unwrap();
        let head = newest_handle(&db, b"roll").1.file;
        assert!(head > first.file);
        let inner = db.inner();
        // The head's drops name the version's sequence (as if a copy of it had been
        // relocated there, then merged away by a compaction).
        let mut drops = crate::vlog::DropWriter::new();
        drops.add(head, seq, 0, 1000, b"k");
        let current = |n| {
            let file = crate::vlog::ValueFile::with_epoch(Arc::clone(&fs), &inner.dir, n, 0);
            Some(Arc::new(file))
        };
        let persisted = inner
            .drop_index
            .persist(fs.as_ref(), &inner.dir, &mut drops, current);
        assert!(persisted.unwrap().is_some());
        let moved = write::relocate(inner, (first.file, 0), &[copy_at(seq, &first)]).unwrap();
        assert_eq!(moved, Some(1));
        let (_, second) = newest_handle(&db, b"k");
        assert!(second.file > head, "a new log holds the relocated copy");
        assert!(!inner.drop_index.is_dropped(second.file, 0, seq));
        assert_eq!(db.get("k").unwrap().as_deref(), Some(&[b'v'; 1000][..]));
    }
}

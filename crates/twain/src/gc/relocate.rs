//! Value GC in lsm-lookup mode (WiscKey), kept as the baseline the drop-records mode is
//! compared with: every record of the file is looked up in the LSM-tree; the records that
//! are still their key's newest version are appended to the head of the value log and
//! their new handles written back into the tree; then the old file is deleted.
//!
//! A record that only a live snapshot still sees cannot be written back (an old version
//! placed above newer ones would hide them), so a file holding one is left for later.

use super::{Job, Run, Throttle, emit};
use crate::Result;
use crate::db::{DbInner, SuperVersion, lock, write};
use crate::format::handle::ValueHandle;
use crate::format::manifest::VersionEdit;
use crate::key::{EntryKind, ParsedKey, SeqNo, lookup_key, split_expiry};
use crate::options::GcEvent;
use crate::stats::Counters;
use std::sync::Arc;

/// Bytes of records relocated per write-lock hold.
const RELOCATE_BATCH_BYTES: usize = 1 << 20;

/// Whether the newest version of `key` is the record `seq` of value file `file`.
pub(crate) fn newest_points_into(
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    file: u64,
) -> Result<bool> {
    Ok(newest_expiry_if_points_into(sv, key, seq, file)?.is_some())
}

/// `Some(expiry time)` when the newest version of `key` is the record `seq` of value file
/// `file`: a relocated record keeps its expiry.
pub(crate) fn newest_expiry_if_points_into(
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    file: u64,
) -> Result<Option<Option<u64>>> {
    let Some((ikey, value)) = crate::db::read::newest_entry(sv, key)? else {
        return Ok(None);
    };
    Ok(handle_into(&ikey, &value, seq, file))
}

fn points_into(ikey: &[u8], value: &[u8], seq: SeqNo, file: u64) -> Result<bool> {
    Ok(handle_into(ikey, value, seq, file).is_some())
}

fn handle_into(ikey: &[u8], value: &[u8], seq: SeqNo, file: u64) -> Option<Option<u64>> {
    let p = ParsedKey::parse(ikey);
    if p.seq != seq || p.entry_kind() != Some(EntryKind::Handle) {
        return None;
    }
    let (expires_at, encoded) = split_expiry(p.kind, value).ok()?;
    ValueHandle::decode(encoded)
        .is_ok_and(|h| h.file == file)
        .then_some(expires_at)
}

/// Whether a live snapshot at `snap` sees record `seq` of `file` for `key`.
pub(crate) fn snapshot_sees(
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    file: u64,
    snap: SeqNo,
) -> Result<bool> {
    let lookup = lookup_key(key, snap);
    let found = sv
        .imms
        .iter()
        .chain(std::iter::once(&sv.mem))
        .find_map(|m| m.get(&lookup));
    match found {
        Some((ikey, value)) => points_into(&ikey, &value, seq, file),
        None => {
            // Not in a memtable: the record can only be seen through the tables.
            let mut it = sv.version.levels.iter().flatten();
            let hit = it.find_map(|t| t.table.get(&lookup).ok().flatten());
            match hit {
                Some((ikey, value)) => points_into(&ikey, &value, seq, file),
                None => Ok(false),
            }
        }
    }
}

/// Whether a live snapshot in `snapshots` sees record `key@seq` of value file `file`.
fn seen_by_a_snapshot(
    inner: &DbInner,
    sv: &SuperVersion,
    (key, seq): (&[u8], SeqNo),
    file: u64,
    snapshots: &[SeqNo],
) -> Result<bool> {
    for &snap in snapshots {
        Counters::add(&inner.counters.gc_lsm_lookups, 1);
        if snapshot_sees(sv, key, seq, file, snap)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Collects the job's value file the WiscKey way. `NotNow` when the file is gone or a live
/// snapshot still needs one of its records. Unlike a drop-records run, this one is not a
/// self-contained job: its validity checks are LSM lookups and its output goes through
/// the write path.
pub(crate) fn relocate(inner: &DbInner, job: &Job) -> Result<Run> {
    let (number, epoch) = (job.file.number(), job.file.epoch());
    let mut throttle = Throttle::new(job.bytes_per_sec);
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
    for r in records {
        let sv = inner.super_version();
        Counters::add(&inner.counters.gc_lsm_lookups, 1);
        if newest_points_into(&sv, &r.key, r.seq, number)? {
            valid.push(r);
            continue;
        }
        if seen_by_a_snapshot(inner, &sv, (&r.key, r.seq), number, &snapshots)? {
            return Ok(Run::NotNow);
        }
        superseded.push((r.key, r.seq));
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
        if write::relocate(inner, number, &valid[start..end])?.is_none() {
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
        for (key, seq) in &superseded {
            if seen_by_a_snapshot(inner, &sv, (key, *seq), number, &snapshots)? {
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

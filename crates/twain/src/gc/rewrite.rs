//! Value GC in drop-records mode (NovKV): rewrite a value file's live records, sorted by
//! key, into an SVTable that keeps the file number with the next epoch. No LSM lookups, no
//! LSM writes: validity comes from the drop set, and stale handles are fixed on read.
//!
//! Crash safety, step by step: the SVTable and its drop file are written and synced (with
//! their directory) before the manifest edit that makes them the file's current epoch; the
//! old epoch's files are deleted only after that edit is durable and no reader holds them.
//! A crash before the edit leaves files no manifest names, which the next open removes.

use super::{Input, Run, Throttle, emit, read_input};
use crate::Result;
use crate::db::{DbInner, SuperVersion, lock};
use crate::error::IoContext;
use crate::format::manifest::{DropDelta, ValueFileRecord, VersionEdit};
use crate::format::names::value_file_path;
use crate::key::SeqNo;
use crate::options::GcEvent;
use crate::stats::Counters;
use crate::vlog::{DropIndex, FileDrops, SvTableWriter};
use std::collections::HashMap;
use std::sync::Arc;

/// Rewrites value file `number` into its next epoch. `NotNow` when the file is gone.
pub(crate) fn rewrite(inner: &DbInner, number: u64) -> Result<Run> {
    let version = Arc::clone(&inner.super_version().version);
    let Some(file) = version.value_files.get(&number).cloned() else {
        return Ok(Run::NotNow);
    };
    drop(version);
    let epoch = file.epoch();
    let fs = inner.fs.as_ref();
    let dir = &inner.dir;
    let mut throttle = Throttle::new(inner.opts.gc_bytes_per_sec);
    // Dead records are neither copied nor, in an SVTable, read.
    let Input {
        records: mut live,
        dropped: dropped_at_start,
        corrupt_dead,
    } = match read_input(inner, &file, &mut throttle, true)? {
        Ok(input) => input,
        Err(damage) => return Ok(Run::Damaged(damage)),
    };
    emit(
        inner,
        GcEvent::LiveRecordsRead {
            file: number,
            live: live.len() as u64,
        },
    );
    if epoch == 0 {
        live.sort_by(|a, b| a.key.cmp(&b.key).then(b.seq.cmp(&a.seq)));
    }
    let new_epoch = epoch + 1;
    let svt_path = value_file_path(dir, number, new_epoch);
    let mut new_lens: HashMap<SeqNo, u32> = HashMap::with_capacity(live.len());
    let summary = if live.is_empty() {
        None
    } else {
        let out = fs.create(&svt_path).ctx("create", &svt_path)?;
        let mut w = SvTableWriter::new(out, svt_path.clone(), number, new_epoch);
        for r in &live {
            let (_, len) = w.add(&r.key, r.seq, &r.value)?;
            new_lens.insert(r.seq, len);
            throttle.spend(u64::from(len));
        }
        drop(live);
        let s = w.finish()?;
        // IMPORTANT: the SVTable's directory entry is durable before the manifest names it.
        fs.sync_dir(dir).ctx("sync directory", dir)?;
        Some(s)
    };
    emit(inner, GcEvent::OutputSynced { file: number });

    // Install under the drop lock: drops that flushes and compactions recorded while this
    // run was copying are carried over to the new epoch, and no drop can be appended to
    // the old epoch's file after it is read here.
    let mut drops = inner.drop_index.lock();
    let mut carried: Vec<(SeqNo, u32)> = drops
        .get(&number)
        .filter(|d| d.epoch == epoch)
        .map(|d| {
            d.seqs
                .difference(&dropped_at_start)
                .filter_map(|s| new_lens.get(s).map(|&l| (*s, l)))
                .collect()
        })
        .unwrap_or_default();
    carried.sort_unstable();
    let mut versions = lock(&inner.versions);
    let still_there = versions
        .current()
        .value_files
        .get(&number)
        .is_some_and(|f| f.epoch() == epoch);
    if !still_there {
        // A compaction left the whole file dead meanwhile and it was deleted: drop the
        // output. Leftovers of a crash here are removed on open.
        let _ = fs.remove_file(&svt_path);
        return Ok(Run::NotNow);
    }
    let mut edit = VersionEdit::default();
    let mut written = 0u64;
    match summary {
        None => edit.deleted_value_files.push(number),
        Some(s) => {
            written += s.file_size;
            written += DropIndex::write_epoch_file(fs, dir, number, new_epoch, &carried)?;
            edit.added_value_files.push(ValueFileRecord {
                number,
                epoch: new_epoch,
                total_bytes: s.file_size,
                separated_bytes: s.entry_bytes,
                separated_count: s.entry_count,
            });
            if !carried.is_empty() {
                edit.value_file_drops.push(DropDelta {
                    number,
                    epoch: new_epoch,
                    count: carried.len() as u64,
                    bytes: carried.iter().map(|&(_, l)| u64::from(l)).sum(),
                });
            }
        }
    }
    // IMPORTANT: if the manifest write fails, the edit may still have reached the file:
    // keep the SVTable and its drop file (the next open removes them if unnamed).
    let version = versions.log_and_apply(edit)?;

    inner.update_super_version(|sv| SuperVersion {
        mem: Arc::clone(&sv.mem),
        imms: sv.imms.clone(),
        version,
    });
    drop(versions);
    match summary {
        Some(_) => {
            let bytes = carried.iter().map(|&(_, l)| u64::from(l)).sum();
            drops.insert(
                number,
                FileDrops {
                    epoch: new_epoch,
                    seqs: carried.into_iter().map(|(s, _)| s).collect(),
                    bytes,
                },
            );
        }
        None => {
            drops.remove(&number);
        }
    }
    drop(drops);
    Counters::add(&inner.counters.gc_bytes_written, written);
    Counters::add(&inner.counters.gc_corrupt_dead_records, corrupt_dead);
    release_memtable_pin(inner, number, epoch)?;
    emit(inner, GcEvent::Installed { file: number });
    Ok(Run::Done)
}

/// Handle fix-ups in the active memtable pin the epoch they point into, which keeps the
/// retired file on disk until that memtable is flushed. In a phase of reads alone the
/// memtable never fills, so freeze it now: the flush then releases the old file.
fn release_memtable_pin(inner: &DbInner, number: u64, retired_epoch: u32) -> Result<()> {
    let mut ws = lock(&inner.write.state);
    if ws.mem.pinned_file(number, retired_epoch).is_some() && !ws.mem.is_empty() {
        crate::db::write::switch_memtable(inner, &mut ws)?;
    }
    Ok(())
}

//! Flushing a frozen memtable into an L0 SSTable.

use super::{DbInner, SuperVersion, lock, write};
use crate::compaction::filter::{Decision, DropFilter};
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::manifest::{TableRecord, ValueFileRecord, VersionEdit};
use crate::format::names::{FileType, file_path};
use crate::iter::InternalIterator;
use crate::key::{EntryKind, ParsedKey};
use crate::stats::Counters;
use crate::table::{TableBuilder, TableOptions};
use crate::vlog::DropWriter;
use crate::{Error, Result};
use std::sync::Arc;
use std::time::Duration;

/// The SSTable options the database's options ask for.
pub(crate) fn table_options(inner: &DbInner) -> TableOptions {
    TableOptions {
        block_size: inner.opts.block_size,
        bloom_bits_per_key: inner.opts.bloom_bits_per_key,
        ..TableOptions::default()
    }
}

/// Records the drop of `ikey`'s value handle, if it holds one.
pub(crate) fn record_drop(drops: &mut DropWriter, ikey: &[u8], value: &[u8]) -> Result<()> {
    let p = ParsedKey::parse(ikey);
    if p.entry_kind() == Some(EntryKind::Handle) {
        let h = ValueHandle::decode(value).map_err(|e| {
            Error::InvalidArgument(format!(
                "undecodable value handle while dropping: {}",
                e.what
            ))
        })?;
        drops.add(h.file, p.seq, h.epoch, h.len, p.user_key);
    }
    Ok(())
}

/// Flushes the oldest frozen memtable, if any.
pub(crate) fn flush_oldest(inner: &DbInner) -> Result<()> {
    let sv = inner.super_version();
    let Some(imm) = sv.imms.last().cloned() else {
        return Ok(());
    };
    let frozen_at = imm
        .frozen_at()
        .ok_or_else(|| Error::InvalidArgument("memtable queued for flush was not frozen".into()))?;
    let mut filter = DropFilter::new(inner.snapshot_seqs());
    let mut drops = DropWriter::new();
    let number = lock(&inner.versions).new_file_number();
    let path = file_path(&inner.dir, FileType::Table, number);
    let mut builder: Option<TableBuilder> = None;
    let mut it = imm.iter();
    it.seek_to_first()?;
    while it.valid() {
        match filter.decide(it.key(), |_| false) {
            Decision::Keep => {
                let b = match builder.as_mut() {
                    Some(b) => b,
                    None => {
                        let file = inner.fs.create(&path).ctx("create", &path)?;
                        builder.insert(TableBuilder::new(file, path.clone(), &table_options(inner)))
                    }
                };
                b.add(it.key(), it.value())?;
            }
            Decision::Drop => record_drop(&mut drops, it.key(), it.value())?,
            Decision::Duplicate => {}
        }
        it.next()?;
    }
    let frozen_seq = imm.frozen_seq().unwrap_or(0);
    let mut edit = VersionEdit {
        flushed_point: Some((frozen_at.file, frozen_at.offset)),
        last_sequence: Some(frozen_seq),
        flushed_sequence: Some(frozen_seq),
        ..VersionEdit::default()
    };
    let mut table_bytes = 0;
    if let Some(b) = builder {
        let summary = b.finish()?;
        // IMPORTANT: the table's directory entry is durable before the manifest names it.
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
    // IMPORTANT: the log is durable up to the freeze position before anything durable
    // refers to its records: the drop records below, and the edit that makes the position
    // the flushed point (the table holds handles into the log, and recovery no longer
    // replays it). This thread, not the writer, waits for that sync.
    inner.log_sync.sync_through(frozen_at)?;
    persist_drops(inner, &mut drops, &mut edit)?;

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
    Counters::add(&inner.counters.flushes, 1);
    Counters::add(&inner.counters.flush_bytes, table_bytes);
    Ok(())
}

/// Makes the drop records durable and adds their counts to `edit`.
pub(crate) fn persist_drops(
    inner: &DbInner,
    drops: &mut DropWriter,
    edit: &mut VersionEdit,
) -> Result<()> {
    if drops.is_empty() {
        return Ok(());
    }
    // IMPORTANT: drop records are durable before the edit that counts them. The epochs
    // are read under the drop lock, which value GC holds while it installs a new epoch.
    let (deltas, written) =
        inner
            .drop_index
            .persist(inner.fs.as_ref(), &inner.dir, drops, |n| {
                inner.super_version().version.value_files.get(&n).cloned()
            })?;
    Counters::add(
        &inner.counters.drop_records,
        deltas.iter().map(|d| d.count).sum(),
    );
    Counters::add(&inner.counters.drop_file_bytes, written);
    edit.value_file_drops.extend(deltas);
    Ok(())
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

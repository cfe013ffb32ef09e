//! One key-range part of a compaction (`compaction::split`): the merge loop over the
//! entries of the task's inputs whose user keys lie in the part's range, writing the
//! part's own output tables, drop records and placed value file. `db::compact` runs the
//! parts of a task in parallel and installs what they return in one version edit.

use super::background::shutting_down;
use super::flush::{record_drop, table_options};
use super::place::{ManualRange, Placed, Placer};
use super::refresh::Refresher;
use super::{DbInner, lock};
use crate::Result;
use crate::compaction::filter::{Decision, DropFilter};
use crate::compaction::picker::CompactionTask;
use crate::compaction::split::PartRange;
use crate::error::IoContext;
use crate::format::manifest::{TableRecord, ValueFileRecord};
use crate::format::names::{FileType, file_path};
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{LOOKUP_KIND, MAX_SEQNO, internal_key, user_key};
use crate::table::TableBuilder;
use crate::version::Version;
use crate::vlog::DropWriter;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a part that ran to its end produced. Nothing of it is installed yet.
pub(crate) struct PartOutput<'a> {
    /// Its output tables, in key order.
    pub tables: Vec<TableRecord>,
    /// The drop records of the entries it dropped or merged into the tree.
    pub drops: DropWriter,
    /// The value file it wrote values re-placed out of the tree into, if any.
    pub placed: Option<ValueFileRecord>,
    /// Bytes of the output tables.
    pub bytes_written: u64,
    /// Its placement work (values read to merge them; figures counted once the task is
    /// installed) and its re-pointing figures.
    pub placer: Placer<'a>,
    pub refresher: Refresher<'a>,
}

/// How a part ended.
pub(crate) enum PartEnd<'a> {
    Done(Box<PartOutput<'a>>),
    /// The database is closing, or another part of the task failed: stopped early.
    Stopped,
}

/// Runs the part of `task` in `range` over `version`. Every file it creates is pushed to
/// `written` as it is created, whatever happens after; `stop` is checked every few
/// thousand entries (another part failed).
pub(crate) fn run_part<'a>(
    inner: &'a DbInner,
    task: &CompactionTask,
    version: &'a Version,
    range: &PartRange,
    manual: Option<ManualRange>,
    stop: &AtomicBool,
    written: &mut Vec<(u64, PathBuf)>,
) -> Result<PartEnd<'a>> {
    let mut placer = Placer::new(inner, version, manual);
    let result = merge(inner, task, version, range, &mut placer, stop, written);
    written.extend(placer.output_path());
    let Some((tables, drops, refresher, bytes_written)) = result? else {
        return Ok(PartEnd::Stopped);
    };
    let placed = placer.finish()?;
    Ok(PartEnd::Done(Box::new(PartOutput {
        tables,
        drops,
        placed,
        bytes_written,
        placer,
        refresher,
    })))
}

type Merged<'a> = Option<(Vec<TableRecord>, DropWriter, Refresher<'a>, u64)>;

fn merge<'a>(
    inner: &'a DbInner,
    task: &CompactionTask,
    version: &'a Version,
    range: &PartRange,
    placer: &mut Placer<'a>,
    stop: &AtomicBool,
    written: &mut Vec<(u64, PathBuf)>,
) -> Result<Merged<'a>> {
    let out_level = task.output_level;
    let mut refresher = Refresher::new(inner, version);
    let mut input = input_iterator(version, task);
    let mut filter = DropFilter::new(inner.snapshot_seqs());
    let mut drops = DropWriter::new();
    let mut outputs: Vec<TableRecord> = Vec::new();
    let mut builder: Option<(u64, TableBuilder)> = None;
    let mut last_user_key: Vec<u8> = Vec::new();
    let mut bytes_written = 0u64;
    let mut entries = 0u64;
    match &range.start {
        // The newest version of the first key sorts first.
        Some(start) => input.seek(&internal_key(start, MAX_SEQNO, LOOKUP_KIND))?,
        None => input.seek_to_first()?,
    }
    while input.valid() {
        let key = input.key();
        if range.is_past(user_key(key)) {
            break;
        }
        entries += 1;
        if entries.is_multiple_of(4096) && (stop.load(Ordering::Relaxed) || shutting_down(inner)) {
            return Ok(None);
        }
        let decision = filter.decide(key, |uk| !deeper_levels_may_hold(version, out_level, uk));
        match decision {
            Decision::Keep => {
                let uk = user_key(key);
                // Cut output files only between user keys, never between versions of one.
                let cut = builder.as_ref().is_some_and(|(_, b)| {
                    b.estimated_size() >= inner.opts.target_file_size && uk != last_user_key
                });
                if cut && let Some((number, b)) = builder.take() {
                    let rec = finish_table(b, number, out_level)?;
                    bytes_written += rec.file_size;
                    outputs.push(rec);
                }
                let (_, b) = match builder.as_mut() {
                    Some(b) => b,
                    None => {
                        let number = lock(&inner.versions).new_file_number();
                        let path = file_path(&inner.dir, FileType::Table, number);
                        let file = inner.fs.create(&path).ctx("create", &path)?;
                        written.push((number, path.clone()));
                        builder
                            .insert((number, TableBuilder::new(file, path, &table_options(inner))))
                    }
                };
                let last = || !deeper_levels_may_hold(version, out_level, uk);
                let placed = match placer.place(key, input.value(), out_level, last, &mut drops)? {
                    // Stale handles re-pointed at their file's new epoch (`db::refresh`).
                    Placed::Same => refresher
                        .refresh(key, input.value())?
                        .map_or(Placed::Same, |v| Placed::Changed(key.to_vec(), v)),
                    changed => changed,
                };
                match placed {
                    Placed::Same => b.add(key, input.value())?,
                    Placed::Changed(k, v) => b.add(&k, &v)?,
                }
                last_user_key.clear();
                last_user_key.extend_from_slice(uk);
            }
            Decision::Drop => record_drop(&mut drops, key, input.value())?,
            Decision::Duplicate => {}
        }
        input.next()?;
    }
    if let Some((number, b)) = builder.take() {
        let rec = finish_table(b, number, out_level)?;
        bytes_written += rec.file_size;
        outputs.push(rec);
    }
    Ok(Some((outputs, drops, refresher, bytes_written)))
}

/// Whether some level below `level` may hold `key`.
fn deeper_levels_may_hold(version: &Version, level: usize, key: &[u8]) -> bool {
    (level + 1..version.levels.len()).any(|l| version.table_for_key(l, key).is_some())
}

fn input_iterator(version: &Version, task: &CompactionTask) -> MergingIterator {
    let by_number = |records: &[TableRecord], level: usize| {
        let wanted: HashSet<u64> = records.iter().map(|r| r.number).collect();
        version
            .levels
            .get(level)
            .map(|files| {
                files
                    .iter()
                    .filter(|t| wanted.contains(&t.number()))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    let upper = by_number(&task.inputs, task.level);
    if task.level == 0 {
        // L0 tables are newest first in the version.
        for t in upper {
            children.push(Box::new(t.table.iter(false)));
        }
    } else {
        children.push(Box::new(LevelIterator::new(upper, false)));
    }
    let lower = by_number(&task.lower, task.output_level);
    children.push(Box::new(LevelIterator::new(lower, false)));
    MergingIterator::new(children)
}

/// Finishes table `number` for `level` and returns its manifest record.
pub(crate) fn finish_table(b: TableBuilder, number: u64, level: usize) -> Result<TableRecord> {
    let s = b.finish()?;
    Ok(TableRecord {
        level,
        number,
        file_size: s.file_size,
        smallest: s.smallest,
        largest: s.largest,
        smallest_seq: s.properties.smallest_seq,
        largest_seq: s.properties.largest_seq,
    })
}

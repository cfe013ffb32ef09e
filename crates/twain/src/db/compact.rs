//! Running compactions: the background job and manual `compact_range`.

use super::background::shutting_down;
use super::flush::{flush_all, persist_drops, record_drop, table_options};
use super::place::{ManualRange, Placed, Placer};
use super::refresh::Refresher;
use super::{DbInner, SuperVersion, lock};
use crate::Result;
use crate::compaction::filter::{Decision, DropFilter};
use crate::compaction::picker::{CompactionTask, pick_bottom, pick_garbage, pick_range};
use crate::error::IoContext;
use crate::format::manifest::{TableRecord, ValueFileOrigin, VersionEdit};
use crate::format::names::{FileType, file_path};
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::user_key;
use crate::stats::Counters;
use crate::table::TableBuilder;
use crate::version::Version;
use crate::vlog::DropWriter;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How a compaction ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Installed,
    /// The database is closing: outputs were discarded, inputs left in place.
    Abandoned,
    /// Value GC rewrote a value file whose values the compaction merged into the tree
    /// (`db::place`): outputs were discarded, inputs left in place for a later pick.
    Conflict,
}

/// Runs one compaction task and installs its result.
pub(crate) fn run(inner: &DbInner, task: &CompactionTask) -> Result<()> {
    run_placing(inner, task, None)
}

/// Runs one compaction task; `manual` is the range of a manual compaction, inside which
/// placement may merge any handle (fix-ups are paused, see `db::place`).
fn run_placing(inner: &DbInner, task: &CompactionTask, manual: Option<ManualRange>) -> Result<()> {
    if task.reason == crate::compaction::picker::GARBAGE {
        Counters::add(&inner.counters.garbage_compactions, 1);
    }
    if task.trivial_move {
        return trivial_move(inner, task);
    }
    let version = Arc::clone(&inner.super_version().version);
    let mut written = Vec::new();
    // IMPORTANT: a failure makes the database read-only before anything else happens, so
    // that no write is accepted once the failed operation has returned.
    let result =
        merge(inner, task, &version, &mut written, manual).map_err(|e| inner.set_bg_error(e));
    if !matches!(result, Ok(Outcome::Installed)) {
        // Outputs that no version names are garbage; leftovers are removed on open.
        for (_, path) in &written {
            let _ = inner.fs.remove_file(path);
        }
    }
    result.map(|_| ())
}

fn trivial_move(inner: &DbInner, task: &CompactionTask) -> Result<()> {
    let moved: Vec<TableRecord> = task
        .inputs
        .iter()
        .map(|t| TableRecord {
            level: task.output_level,
            ..t.clone()
        })
        .collect();
    install(inner, task.edit(moved))?;
    Counters::add(&inner.counters.compactions, 1);
    Counters::add(&inner.counters.trivial_moves, 1);
    Ok(())
}

fn install(inner: &DbInner, edit: VersionEdit) -> Result<()> {
    let mut versions = lock(&inner.versions);
    let version = versions.log_and_apply(edit)?;
    inner.update_super_version(|sv| SuperVersion {
        mem: Arc::clone(&sv.mem),
        imms: sv.imms.clone(),
        version,
    });
    Ok(())
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

fn merge(
    inner: &DbInner,
    task: &CompactionTask,
    version: &Version,
    written: &mut Vec<(u64, PathBuf)>,
    manual: Option<ManualRange>,
) -> Result<Outcome> {
    let out_level = task.output_level;
    let mut placer = Placer::new(inner, version, manual);
    let mut refresher = Refresher::new(inner, version);
    let mut input = input_iterator(version, task);
    let mut filter = DropFilter::new(inner.snapshot_seqs());
    let mut drops = DropWriter::new();
    let mut outputs: Vec<TableRecord> = Vec::new();
    let mut builder: Option<(u64, TableBuilder)> = None;
    let mut last_user_key: Vec<u8> = Vec::new();
    let mut bytes_written = 0u64;
    let mut entries = 0u64;
    input.seek_to_first()?;
    while input.valid() {
        entries += 1;
        if entries.is_multiple_of(4096) && shutting_down(inner) {
            written.extend(placer.output_path());
            return Ok(Outcome::Abandoned);
        }
        let key = input.key();
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
                let placed = placer
                    .place(key, input.value(), out_level, last, &mut drops)
                    .and_then(|placed| match placed {
                        // Stale handles re-pointed at their file's new epoch (`db::refresh`).
                        Placed::Same => Ok(refresher
                            .refresh(key, input.value())?
                            .map_or(Placed::Same, |v| Placed::Changed(key.to_vec(), v))),
                        changed => Ok(changed),
                    });
                match placed.inspect_err(|_| written.extend(placer.output_path()))? {
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
    written.extend(placer.output_path());
    let placed = placer.finish()?;
    if !outputs.is_empty() {
        // IMPORTANT: output tables' directory entries are durable before the manifest
        // names them.
        inner
            .fs
            .sync_dir(&inner.dir)
            .ctx("sync directory", &inner.dir)?;
    }
    let bytes_read: u64 = task
        .inputs
        .iter()
        .chain(&task.lower)
        .map(|t| t.file_size)
        .sum::<u64>()
        + placer.bytes_read;
    let mut edit = task.edit(outputs);
    if let Some(record) = placed {
        bytes_written += record.total_bytes;
        edit.value_file_origins
            .push((record.number, ValueFileOrigin::Placed));
        edit.added_value_files.push(record);
    }
    let mut held = inner.drop_index.lock();
    if !persist_drops(inner, &mut held, &mut drops, &mut edit)? {
        return Ok(Outcome::Conflict);
    }
    // IMPORTANT: from here on the outputs may be named by a durable edit even if the
    // manifest write reports a failure (the bytes may have reached the file): never delete
    // them. If the edit did not land, the next open removes them as orphans.
    written.clear();
    install(inner, edit)?;
    drop(held);

    placer.count();
    refresher.count();
    let c = &inner.counters;
    Counters::add(&c.compactions, 1);
    Counters::add(&c.compaction_bytes_read, bytes_read);
    Counters::add(&c.compaction_bytes_written, bytes_written);
    Ok(Outcome::Installed)
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

/// Flushes, then compacts every level's tables overlapping `[begin, end]` into the next
/// level, down to the deepest level holding data, and finally that level into itself, so
/// that versions and tombstones no snapshot needs are gone. Automatic compactions pause
/// meanwhile.
pub(crate) fn compact_range(
    inner: &DbInner,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
) -> Result<()> {
    // Fix-ups paused before the flush: every copy of a record is in a table when the
    // merge reaches it (`db::place`).
    let _no_fixups = FixupPause::new(inner);
    flush_all(inner)?;
    pause_automatic(inner);
    let result = compact_levels(inner, begin, end);
    lock(&inner.bg.state).manual = false;
    inner.bg.notify_all();
    // Like a background compaction's, a failure here makes the database read-only: the
    // manifest may hold the edit that failed to sync.
    result.map_err(|e| inner.set_bg_error(e))
}

/// Runs garbage compactions (`picker::pick_garbage`) until no table shadows another, with
/// automatic compactions paused like a manual compaction. Returns how many ran. For a
/// complete GC (`Db::gc_report`): afterwards every version that is dead is known dead.
pub(crate) fn garbage_compact_all(inner: &DbInner) -> Result<u64> {
    pause_automatic(inner);
    let result = (|| {
        let mut runs = 0;
        loop {
            inner.check_bg_error()?;
            let version = Arc::clone(&inner.super_version().version);
            let Some(task) = pick_garbage(&version.state, &HashSet::new()) else {
                return Ok(runs);
            };
            run(inner, &task)?;
            runs += 1;
        }
    })();
    lock(&inner.bg.state).manual = false;
    inner.bg.notify_all();
    result.map_err(|e| inner.set_bg_error(e))
}

/// Waits for the running automatic compactions and keeps new ones from starting (one
/// manual compaction at a time: they do not mark their inputs busy).
fn pause_automatic(inner: &DbInner) {
    let mut st = lock(&inner.bg.state);
    while st.manual {
        st = inner.bg.wait(st, Duration::from_millis(50));
    }
    st.manual = true;
    while st.compactions_running > 0 {
        st = inner.bg.wait(st, Duration::from_millis(50));
    }
}

fn compact_levels(inner: &DbInner, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
    let manual = ManualRange {
        begin: begin.map(<[u8]>::to_vec),
        end: end.map(<[u8]>::to_vec),
    };
    let lo = begin.unwrap_or_default().to_vec();
    let levels = inner.opts.num_levels;
    let deepest = |version: &Version| {
        (0..levels)
            .rev()
            .find(|&l| version.levels.get(l).is_some_and(|f| !f.is_empty()))
            .unwrap_or(0)
            .max(1)
    };
    for level in 0..levels - 1 {
        loop {
            inner.check_bg_error()?;
            let version = Arc::clone(&inner.super_version().version);
            if level >= deepest(&version) {
                break;
            }
            let hi = range_end(&version, end);
            let Some(mut task) = pick_range(&version.state, level, &lo, &hi, &HashSet::new())
            else {
                break;
            };
            // A manual compaction rewrites, so tombstones and old versions go away.
            task.trivial_move = false;
            run_placing(inner, &task, Some(manual.clone()))?;
        }
    }
    let version = Arc::clone(&inner.super_version().version);
    let bottom = deepest(&version);
    let hi = range_end(&version, end);
    match pick_bottom(&version.state, bottom, &lo, &hi, &HashSet::new()) {
        Some(task) => run_placing(inner, &task, Some(manual)),
        None => Ok(()),
    }
}

/// Keeps reads from fixing handles up while it lives (`DbInner::fixups_paused`).
struct FixupPause<'a>(&'a DbInner);

impl<'a> FixupPause<'a> {
    fn new(inner: &'a DbInner) -> FixupPause<'a> {
        // Under the write lock, which a fix-up holds from its check to its insert.
        let _ws = lock(&inner.write.state);
        inner.fixups_paused.fetch_add(1, Ordering::SeqCst);
        inner.manual_compactions.fetch_add(1, Ordering::SeqCst);
        FixupPause(inner)
    }
}

impl Drop for FixupPause<'_> {
    fn drop(&mut self) {
        self.0.fixups_paused.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The last user key of the range: `end`, or the largest key of any table.
fn range_end(version: &Version, end: Option<&[u8]>) -> Vec<u8> {
    match end {
        Some(e) => e.to_vec(),
        None => version
            .levels
            .iter()
            .flatten()
            .map(|t| t.largest_user_key().to_vec())
            .max()
            .unwrap_or_default(),
    }
}

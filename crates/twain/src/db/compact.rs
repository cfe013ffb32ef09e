//! Running compactions: the background job and manual `compact_range`. A merge runs as
//! key-range parts (`compaction::split`, `db::part`) in parallel, installed in one edit.

use super::flush::{flush_all, persist_drops};
use super::part::{PartEnd, run_part};
use super::place::ManualRange;
use super::{DbInner, SuperVersion, lock};
use crate::Result;
use crate::compaction::picker::{CompactionTask, pick_bottom, pick_garbage, pick_range};
use crate::compaction::split::{PartRange, split};
use crate::error::IoContext;
use crate::format::manifest::{TableRecord, ValueFileOrigin, VersionEdit};
use crate::stats::Counters;
use crate::version::Version;
use crate::vlog::DropWriter;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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

fn merge(
    inner: &DbInner,
    task: &CompactionTask,
    version: &Version,
    written: &mut Vec<(u64, PathBuf)>,
    manual: Option<ManualRange>,
) -> Result<Outcome> {
    let min_part_bytes = inner.opts.target_file_size / 4;
    let ranges = split(task, inner.opts.max_subcompactions, min_part_bytes);
    let mut outputs: Vec<TableRecord> = Vec::new();
    let mut drops = DropWriter::new();
    let mut placed = Vec::new();
    let mut done = Vec::new();
    let mut bytes_written = 0u64;
    for end in run_parts(inner, task, version, &ranges, manual, written)? {
        let PartEnd::Done(mut part) = end else {
            return Ok(Outcome::Abandoned);
        };
        outputs.append(&mut part.tables);
        drops.absorb(std::mem::take(&mut part.drops));
        bytes_written += part.bytes_written;
        placed.extend(part.placed.take());
        done.push(part);
    }
    if !outputs.is_empty() || !placed.is_empty() {
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
        + done.iter().map(|p| p.placer.bytes_read).sum::<u64>();
    let mut edit = task.edit(outputs);
    for record in placed {
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

    for part in &done {
        part.placer.count();
        part.refresher.count();
    }
    let c = &inner.counters;
    Counters::add(&c.compactions, 1);
    Counters::add(&c.compaction_parts, ranges.len() as u64);
    if ranges.len() > 1 {
        Counters::add(&c.split_compactions, 1);
    }
    Counters::add(&c.compaction_bytes_read, bytes_read);
    Counters::add(&c.compaction_bytes_written, bytes_written);
    Ok(Outcome::Installed)
}

/// Runs the parts of `task`, the first on this thread and each other on its own, and
/// returns how each ended, in key order. Every file any part created is in `written`.
/// When one part fails the others stop early, and the first failure is returned.
fn run_parts<'a>(
    inner: &'a DbInner,
    task: &CompactionTask,
    version: &'a Version,
    ranges: &[PartRange],
    manual: Option<ManualRange>,
    written: &mut Vec<(u64, PathBuf)>,
) -> Result<Vec<PartEnd<'a>>> {
    let stop = AtomicBool::new(false);
    let one = |range: &PartRange| {
        let mut files = Vec::new();
        let end = run_part(
            inner,
            task,
            version,
            range,
            manual.clone(),
            &stop,
            &mut files,
        );
        if end.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        (files, end)
    };
    let results = std::thread::scope(|s| {
        let spawned: Vec<_> = ranges
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, range)| {
                std::thread::Builder::new()
                    .name(format!("twain-part-{i}"))
                    .spawn_scoped(s, || one(range))
                    .map_err(|_| range)
            })
            .collect();
        let mut results = Vec::with_capacity(ranges.len());
        results.extend(ranges.first().map(one));
        for handle in spawned {
            results.push(match handle {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: the part runs here, after the others.
                Err(range) => one(range),
            });
        }
        results
    });
    let mut ends = Vec::with_capacity(results.len());
    let mut failure = None;
    for (files, end) in results {
        written.extend(files);
        match end {
            Ok(end) => ends.push(end),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(ends),
    }
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

//! Running compactions: the background job and manual `compact_range`. A merge runs as
//! key-range parts (`compaction::split`, jobs run by `compaction::part`) in parallel, installed in one edit.

use super::flush::{flush_all, persist_drops};
use super::offload;
use super::parts::{self, VersionEnv};
use super::{DbInner, SuperVersion, lock};
use crate::Result;
use crate::compaction::job::{ManualRange, PartFigures, PartJob, PartOutcome};
use crate::compaction::part::{PartEnd, run_part};
use crate::compaction::picker::{
    CompactionTask, move_skips_a_merge, pick_bottom, pick_expired, pick_garbage, pick_range,
};
use crate::error::IoContext;
use crate::event_log::event;
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
    /// Installed, with these output tables.
    Installed(Vec<u64>),
    /// The database is closing: outputs were discarded, inputs left in place.
    Abandoned,
    /// Value GC rewrote a value file whose values the compaction merged into the tree
    /// (`compaction::place`): outputs were discarded, inputs left in place for a later pick.
    Conflict,
}

/// Runs one compaction task and installs its result. Returns the numbers of the tables
/// it installed: none if it was abandoned (the database is closing) or lost a conflict
/// with value GC, the inputs themselves for a trivial move.
pub(crate) fn run(inner: &DbInner, task: &CompactionTask) -> Result<Vec<u64>> {
    run_placing(inner, task, None)
}

/// Runs one compaction task; `manual` is the range of a manual compaction, inside which
/// placement may merge any handle (fix-ups are paused, see `compaction::place`).
fn run_placing(
    inner: &DbInner,
    task: &CompactionTask,
    manual: Option<ManualRange>,
) -> Result<Vec<u64>> {
    use crate::compaction::picker::{EXPIRED, GARBAGE, REFRESH};
    if task.reason == GARBAGE || task.reason == EXPIRED {
        Counters::add(&inner.counters.garbage_compactions, 1);
    }
    if task.reason == REFRESH {
        Counters::add(&inner.counters.refresh_compactions, 1);
    }
    let version = Arc::clone(&inner.super_version().version);
    if task.trivial_move && !move_skips_a_merge(&version.state, task, &inner.opts.placement()) {
        trivial_move(inner, task)?;
        return Ok(task.inputs.iter().map(|t| t.number).collect());
    }
    let mut written = Vec::new();
    // IMPORTANT: a failure makes the database read-only before anything else happens, so
    // that no write is accepted once the failed operation has returned.
    let result =
        merge(inner, task, &version, &mut written, manual).map_err(|e| inner.set_bg_error(e));
    if !matches!(result, Ok(Outcome::Installed(_))) {
        // Outputs that no version names are garbage; leftovers are removed on open.
        for (_, path) in &written {
            let _ = inner.fs.remove_file(path);
        }
    }
    result.map(|outcome| match outcome {
        Outcome::Installed(tables) => tables,
        Outcome::Abandoned | Outcome::Conflict => Vec::new(),
    })
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
    event!(
        inner.events,
        Info,
        "compaction L{} -> L{} ({}): {} tables moved",
        task.level,
        task.output_level,
        task.reason,
        task.inputs.len()
    );
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
    // Work that only removes garbage yields to reads; what keeps the tree in shape runs
    // flat out, as manual compactions do. Refresh compactions have their own pacing
    // (`background::refresh_pick`: they exist for reads, and take at most a fifth of a
    // compaction thread under any load).
    use crate::compaction::picker::{EXPIRED, GARBAGE};
    let yields = manual.is_none() && [GARBAGE, EXPIRED].contains(&task.reason);
    let jobs = parts::plan(inner, task, version, manual);
    let mut outputs: Vec<TableRecord> = Vec::new();
    let mut drops = DropWriter::new();
    let mut placed = Vec::new();
    let mut figures = Vec::new();
    let tally = offload::OffloadTally::default();
    let pace = super::pacing::CompactionPace::new(inner);
    let pace = yields.then_some(&pace);
    for end in run_parts(inner, version, &jobs, &tally, written, pace)? {
        let PartEnd::Done(part) = end else {
            return Ok(Outcome::Abandoned);
        };
        let PartOutcome {
            mut tables,
            drops: part_drops,
            placed: part_placed,
            figures: part_figures,
        } = *part;
        outputs.append(&mut tables);
        drops.absorb(part_drops);
        placed.extend(part_placed);
        figures.push(part_figures);
    }
    if !outputs.is_empty() || !placed.is_empty() {
        // IMPORTANT: output tables' directory entries are durable before the manifest
        // names them.
        inner
            .fs
            .sync_dir(&inner.dir)
            .ctx("sync directory", &inner.dir)?;
    }
    let sum = |f: fn(&PartFigures) -> u64| figures.iter().map(f).sum::<u64>();
    let bytes_read = task.input_bytes() + sum(|f| f.value_bytes_read);
    let mut bytes_written = sum(|f| f.table_bytes_written);
    let output_tables = outputs.len();
    let output_numbers: Vec<u64> = outputs.iter().map(|t| t.number).collect();
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

    let c = &inner.counters;
    Counters::add(&c.medium_bytes_merged, sum(|f| f.medium_bytes_merged));
    Counters::add(&c.replaced_inline_bytes, sum(|f| f.replaced_inline_bytes));
    Counters::add(
        &c.replaced_separated_bytes,
        sum(|f| f.replaced_separated_bytes),
    );
    Counters::add(&c.compaction_handle_refreshes, sum(|f| f.handle_refreshes));
    Counters::add(&c.expired_entries, sum(|f| f.expired_entries));
    Counters::add(&c.compactions, 1);
    Counters::add(&c.compaction_parts, jobs.len() as u64);
    Counters::add(&c.parts_offloaded, tally.parts.load(Ordering::Relaxed));
    Counters::add(
        &c.worker_bytes_written,
        tally.worker_bytes.load(Ordering::Relaxed),
    );
    if jobs.len() > 1 {
        Counters::add(&c.split_compactions, 1);
    }
    Counters::add(&c.compaction_bytes_read, bytes_read);
    Counters::add(&c.compaction_bytes_written, bytes_written);
    event!(
        inner.events,
        Info,
        "compaction L{} -> L{} ({}): {} tables, {bytes_read} bytes read; {output_tables} \
         tables, {bytes_written} bytes written; {} parts ({} offloaded)",
        task.level,
        task.output_level,
        task.reason,
        task.inputs.len() + task.lower.len(),
        jobs.len(),
        tally.parts.load(Ordering::Relaxed)
    );
    Ok(Outcome::Installed(output_numbers))
}

/// Runs the parts `jobs` of one task, the first on this thread and each other on its own,
/// and returns how each ended, in key order. Every file any part created is in `written`.
/// When one part fails the others stop early, and the first failure is returned.
fn run_parts(
    inner: &DbInner,
    version: &Version,
    jobs: &[PartJob],
    tally: &offload::OffloadTally,
    written: &mut Vec<(u64, PathBuf)>,
    pace: Option<&super::pacing::CompactionPace<'_>>,
) -> Result<Vec<PartEnd>> {
    let stop = AtomicBool::new(false);
    let env = VersionEnv {
        inner,
        version,
        stop: &stop,
        pace,
    };
    let target = inner.opts.offload_target();
    let one = |i: usize, job: &PartJob| {
        let mut files = Vec::new();
        let end = match &target {
            Some(t) if offload::offloaded(jobs.len(), i) => {
                offload::run_offloaded(inner, &env, job, t, tally, &mut files)
            }
            _ => run_part(job, &env, &mut files),
        };
        if end.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        (files, end)
    };
    let results = std::thread::scope(|s| {
        let spawned: Vec<_> = jobs
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, job)| {
                std::thread::Builder::new()
                    .name(format!("twain-part-{i}"))
                    .spawn_scoped(s, move || one(i, job))
                    .map_err(|_| (i, job))
            })
            .collect();
        let mut results = Vec::with_capacity(jobs.len());
        results.extend(jobs.first().map(|job| one(0, job)));
        for handle in spawned {
            results.push(match handle {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: the part runs here, after the others.
                Err((i, job)) => one(i, job),
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
    // merge reaches it (`compaction::place`).
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

/// The tables of `version` whose earliest expiry time (a table property) is at or before
/// `now`: those holding expired puts, for `picker::pick_expired`.
pub(crate) fn expired_tables(version: &crate::version::Version, now: u64) -> HashSet<u64> {
    version
        .levels
        .iter()
        .flatten()
        .filter(|t| {
            t.table
                .properties()
                .earliest_expiry
                .is_some_and(|at| at <= now)
        })
        .map(|t| t.number())
        .collect()
}

/// Runs garbage compactions (`picker::pick_garbage`, then `picker::pick_expired`) until no
/// table shadows another and none holds an expired put, with automatic compactions paused
/// like a manual compaction. Returns how many ran. For a complete GC (`Db::gc_report`):
/// afterwards every version that is dead is known dead.
pub(crate) fn garbage_compact_all(inner: &DbInner) -> Result<u64> {
    pause_automatic(inner);
    let result = (|| {
        let mut runs = 0;
        loop {
            inner.check_bg_error()?;
            let version = Arc::clone(&inner.super_version().version);
            let none = HashSet::new();
            let shape = super::background::shape(inner);
            let task = pick_garbage(&version.state, &shape, &none).or_else(|| {
                let expired = expired_tables(&version, inner.opts.clock.now_millis());
                pick_expired(&version.state, &shape, &expired, &none)
            });
            let Some(task) = task else {
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

/// Whether compactions re-point stale handles (`compaction::refresh`, the same test as
/// `PartSettings::refresh`): value GC keeps file numbers only in drop-records mode.
pub(crate) fn refreshes_handles(inner: &DbInner) -> bool {
    inner.opts.gc_mode == crate::GcMode::DropRecords
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
            let shape = super::background::shape(inner);
            let found = pick_range(&version.state, &shape, level, &lo, &hi, &HashSet::new());
            let Some(mut task) = found else {
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
        Some(task) => run_placing(inner, &task, Some(manual)).map(|_| ()),
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

//! Group GC in the hash layout (HashKV): which group to collect, running its job
//! (`gc::group`), installing the result, and the reserved space that paces it.
//!
//! **Reserved space.** A group's main segment holds what its last GC kept; the segments
//! flushes wrote since are its *log* segments, taken from a reserved pool shared by every
//! group. What counts against the pool's budget is the garbage the log segments made: their
//! bytes times the share of log bytes that group GCs found dead (a moving average,
//! [`GarbageRatio`]: new keys make no garbage, overwrites of keys in the group do). The
//! budget is `(space_amp_target - 1)` times the main segments' bytes, and at least two
//! memtables: the same target that paces the log layout's GC, so one knob sets the space.
//! So a load of new keys is not regrouped over and over, while overwrites are collected as
//! they make garbage. The background collects the group with the most log bytes (the one
//! written most, as HashKV picks) while the estimated garbage is over half the budget, and,
//! when the foreground is quiet, over the idle target's share (`pacing::idle_target`: a
//! tenth of the main bytes for the default 1.3), not down to nothing: each group GC
//! rewrites its group's main segment, which a small burst does not pay for. A flush that
//! finds the budget used up waits for GC to make room (`wait_for_room`), so writes slow
//! down rather than grow the disk past the budget.

use super::{DbInner, lock};
use crate::error::Error;
use crate::format::manifest::{ValueFileOrigin, ValueFileRecord, VersionEdit};
use crate::gc::{FileVerdict, GroupJob, GroupOutput, SetAsideFile, StayReason};
use crate::hash_layout::is_main;
use crate::stats::Counters;
use crate::version::Version;
use crate::vlog::ValueFile;
use crate::{GcReport, Result};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The reserved pool now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Reserved {
    /// Bytes of log segments (what flushes wrote since each group's last GC), leaving out
    /// groups set aside for damage.
    pub used: u64,
    /// The garbage they made, estimated: `used` times the [`GarbageRatio`].
    pub garbage: u64,
    /// Bytes of main segments.
    pub main: u64,
    /// The budget for `garbage`.
    pub budget: u64,
}

/// The share of log-segment bytes that group GCs found dead, as a moving average over
/// GCs. Starts at one half (nothing observed yet) and never goes below
/// [`GarbageRatio::FLOOR`], so that the pool is collected once in a while even after a
/// load of new keys, and the average learns when overwrites begin. Thread-safe.
#[derive(Debug)]
pub(crate) struct GarbageRatio(std::sync::atomic::AtomicU64);

impl Default for GarbageRatio {
    fn default() -> GarbageRatio {
        GarbageRatio(std::sync::atomic::AtomicU64::new(0.5f64.to_bits()))
    }
}

impl GarbageRatio {
    /// The least share assumed dead.
    const FLOOR: f64 = 0.05;
    /// Weight of one GC's observation in the average.
    const WEIGHT: f64 = 0.3;

    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Takes in one GC: `dead` bytes freed for `log` bytes of log segments merged.
    fn observe(&self, dead: u64, log: u64) {
        if log == 0 {
            return;
        }
        let seen = (dead as f64 / log as f64).clamp(0.0, 1.0);
        let next = (1.0 - Self::WEIGHT) * self.get() + Self::WEIGHT * seen;
        self.0.store(
            next.max(Self::FLOOR).to_bits(),
            std::sync::atomic::Ordering::Relaxed,
        );
    }
}

/// The segments of one group in `version`: its main segment first, if it has one, then
/// its log segments by number.
fn segments(version: &Version, group: u32) -> Vec<Arc<ValueFile>> {
    let mut out: Vec<(bool, u64)> = version
        .state
        .value_files
        .iter()
        .filter(|(_, f)| f.origin == ValueFileOrigin::Hash && f.group == group)
        .filter_map(|(&n, f)| f.sealed.map(|s| (!is_main(s.epoch), n)))
        .collect();
    out.sort_unstable();
    out.iter()
        .filter_map(|(_, n)| version.value_files.get(n).cloned())
        .collect()
}

/// Log-segment bytes per group, leaving out groups with a segment set aside.
fn log_bytes(inner: &DbInner, version: &Version) -> BTreeMap<u32, u64> {
    let set_aside: HashSet<u64> = inner.gc_set_aside.numbers().into_iter().collect();
    let mut skip = HashSet::new();
    let mut bytes: BTreeMap<u32, u64> = BTreeMap::new();
    for (n, f) in &version.state.value_files {
        let Some(s) = f.sealed.filter(|_| f.origin == ValueFileOrigin::Hash) else {
            continue;
        };
        if set_aside.contains(n) {
            skip.insert(f.group);
        }
        if !is_main(s.epoch) {
            *bytes.entry(f.group).or_default() += s.total_bytes;
        }
    }
    bytes.retain(|g, _| !skip.contains(g));
    bytes
}

/// The reserved pool of the current version.
pub(crate) fn reserved(inner: &DbInner) -> Reserved {
    let version = Arc::clone(&inner.super_version().version);
    let used = log_bytes(inner, &version).values().sum();
    let main = version
        .state
        .value_files
        .values()
        .filter(|f| f.origin == ValueFileOrigin::Hash)
        .filter_map(|f| f.sealed.filter(|s| is_main(s.epoch)))
        .map(|s| s.total_bytes)
        .sum::<u64>();
    let share = (inner.opts.space_amp_target - 1.0) * main as f64;
    let floor = 2 * inner.opts.memtable_size as u64;
    Reserved {
        used,
        garbage: (used as f64 * inner.hash_garbage.get()) as u64,
        main,
        budget: (share as u64).max(floor),
    }
}

/// What one group GC did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupRun {
    /// No group has a log segment.
    Idle,
    /// The group was collected.
    Collected(u32),
    /// A segment of the group is damaged where a record may be live: the group is set
    /// aside for this open.
    SetAside(u32),
}

/// Collects the group with the most log-segment bytes, if one has any.
pub(crate) fn run_once(inner: &DbInner) -> Result<GroupRun> {
    let _one_at_a_time = lock(&inner.gc_lock);
    let version = Arc::clone(&inner.super_version().version);
    let Some(group) = log_bytes(inner, &version)
        .into_iter()
        .filter(|&(_, b)| b > 0)
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(g, _)| g)
    else {
        return Ok(GroupRun::Idle);
    };
    let inputs = segments(&version, group);
    drop(version);
    let Some(first) = inputs.first() else {
        return Ok(GroupRun::Idle);
    };
    let job = GroupJob {
        fs: Arc::clone(&inner.fs),
        dir: inner.dir.clone(),
        group,
        keep: first.number(),
        epoch: first.epoch() + 1,
        snapshots: inner.snapshot_seqs(),
        bytes_per_sec: inner.opts.gc_bytes_per_sec,
        inputs,
    };
    let out = match job.run() {
        Ok(out) => out,
        Err(Error::Corruption { file, offset, what }) => {
            inner.gc_set_aside.insert(SetAsideFile {
                number: job.keep,
                epoch: job.epoch - 1,
                file,
                offset,
                key: None,
                what,
            });
            Counters::add(&inner.counters.gc_files_set_aside, 1);
            return Ok(GroupRun::SetAside(group));
        }
        Err(e) => return Err(e),
    };
    install(inner, &job, &out)?;
    let input: u64 = job.inputs.iter().map(|f| f.total_bytes()).sum();
    let log: u64 = job
        .inputs
        .iter()
        .filter(|f| !is_main(f.epoch()))
        .map(|f| f.total_bytes())
        .sum();
    let output = out.summary.map_or(0, |s| s.file_size);
    inner
        .hash_garbage
        .observe(input.saturating_sub(output), log);
    Counters::add(&inner.counters.gc_runs, 1);
    Counters::add(&inner.counters.gc_bytes_read, out.bytes_read);
    Ok(GroupRun::Collected(group))
}

/// Makes the output the group's main segment and deletes the other inputs, in one edit.
fn install(inner: &DbInner, job: &GroupJob, out: &GroupOutput) -> Result<()> {
    let mut edit = VersionEdit::default();
    for f in &job.inputs {
        if f.number() != job.keep || out.summary.is_none() {
            edit.deleted_value_files.push(f.number());
        }
    }
    if let Some(s) = out.summary {
        edit.added_value_files.push(ValueFileRecord {
            number: job.keep,
            epoch: job.epoch,
            total_bytes: s.file_size,
            separated_bytes: s.entry_bytes,
            separated_count: s.entry_count,
        });
        edit.hash_segments.push((job.keep, job.group));
    }
    let mut versions = lock(&inner.versions);
    // Only group GC changes a segment, one run at a time (`gc_lock`): the inputs are as
    // the job found them.
    // IMPORTANT: if the manifest write fails, the edit may still have reached the file:
    // keep the output (the next open removes it if unnamed).
    let version = versions.log_and_apply(edit)?;
    super::value_gc::publish_version(inner, version);
    drop(versions);
    if let Some(s) = out.summary {
        Counters::add(&inner.counters.gc_bytes_written, s.file_size);
    }
    // Fix-ups in the active memtable may pin the main segment's old epoch until that
    // memtable is flushed. Unlike a log-layout run, this one does not freeze the memtable
    // to let go sooner: a freeze may wait for a flush, which may wait for this GC.
    Ok(())
}

/// One wake-up of the GC thread in the hash layout: collects while the reserved pool is
/// over half its budget, or (when the foreground is quiet) over the idle target's share of
/// the main bytes.
pub(crate) fn round(inner: &DbInner, quiet: bool) -> Result<()> {
    let mut collected = HashSet::new();
    let idle_share = super::pacing::idle_target(inner.opts.space_amp_target) - 1.0;
    loop {
        let r = reserved(inner);
        let goal = if quiet {
            (idle_share * r.main as f64) as u64
        } else {
            r.budget / 2
        };
        if r.garbage <= goal || super::background::shutting_down(inner) {
            return Ok(());
        }
        match run_once(inner)? {
            GroupRun::Idle => return Ok(()),
            // A group collected twice in one round while quiet: the writes came back.
            GroupRun::Collected(g) if !collected.insert(g) && quiet => return Ok(()),
            _ => {}
        }
        inner.bg.notify_all();
    }
}

/// Waits while the reserved pool is full, so a flush does not grow the disk past the
/// budget; returns at once without background GC (nothing would make room), on shutdown,
/// after a background error, or when no group GC can help.
pub(crate) fn wait_for_room(inner: &DbInner) -> Result<()> {
    if !inner.opts.gc_enabled {
        return Ok(());
    }
    let start = Instant::now();
    loop {
        let r = reserved(inner);
        if r.garbage < r.budget {
            break;
        }
        inner.check_bg_error()?;
        if super::background::shutting_down(inner) {
            break;
        }
        inner.bg.notify_all();
        inner.bg.wait_for_change(Duration::from_millis(20));
    }
    let waited = start.elapsed();
    if waited >= Duration::from_millis(1) {
        Counters::add(&inner.counters.hash_flush_waits, 1);
        Counters::add(
            &inner.counters.hash_flush_wait_micros,
            waited.as_micros() as u64,
        );
    }
    Ok(())
}

/// A complete GC in the hash layout: flushes, then collects every group that has a log
/// segment, once. Every main segment left then holds only records some reader may see.
pub(crate) fn complete(inner: &DbInner) -> Result<GcReport> {
    super::flush::flush_all(inner)?;
    let mut report = GcReport {
        threshold: 1.0,
        ..GcReport::default()
    };
    let version = Arc::clone(&inner.super_version().version);
    let groups: Vec<u32> = log_bytes(inner, &version).into_keys().collect();
    drop(version);
    for _ in groups {
        match run_once(inner)? {
            GroupRun::Idle => break,
            GroupRun::Collected(_) => report.collected += 1,
            GroupRun::SetAside(_) => {}
        }
    }
    let version = Arc::clone(&inner.super_version().version);
    let set_aside: HashSet<u64> = inner.gc_set_aside.numbers().into_iter().collect();
    for (&number, f) in &version.state.value_files {
        let Some(s) = f.sealed.filter(|_| f.origin == ValueFileOrigin::Hash) else {
            continue;
        };
        let reason = if set_aside.contains(&number) {
            StayReason::SetAside
        } else if is_main(s.epoch) {
            StayReason::Live
        } else {
            // Written by a flush while this GC ran.
            StayReason::Active
        };
        report.files.push(FileVerdict {
            number,
            total_bytes: s.total_bytes,
            live_fraction: 1.0,
            reason,
        });
    }
    Ok(report)
}

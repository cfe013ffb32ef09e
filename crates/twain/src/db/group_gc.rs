//! Group GC in the hash layout (HashKV): which group to collect, running its job
//! (`gc::group`), installing the result, and the reserved space that paces it.
//!
//! **Reserved space.** A group's main segment holds what its last GC kept; the segments
//! flushes wrote since are its *log* segments, taken from a reserved pool shared by every
//! group. What counts against the pool's budget is the garbage on disk:
//! - the garbage the log segments made: their bytes times the garbage per log byte
//!   ([`GarbageRatio`]: new keys make none, overwrites of keys in the group do, wherever the
//!   older record lies), learnt from every group GC and from a sample of every flush's keys
//!   looked up in the tree ([`FlushSample`]);
//! - the dead records group GCs left in cold segments (hotness keeps a cold segment in
//!   place until enough of it is dead), as each group's last GC counted them.
//!
//! The budget is `(space_amp_target - 1)` times the live bytes of the main and cold
//! segments, and at least two memtables: the same target that paces the log layout's GC,
//! so one knob sets the space. So a load of new keys is not regrouped over and over, while
//! overwrites are collected as they make garbage. The background collects the group with
//! the most estimated garbage (for log segments alone, the one written most, as HashKV
//! picks) while the total is over half the budget, and, when the foreground is quiet,
//! over the idle target's share (`pacing::idle_target`: a tenth of the main bytes for the
//! default 1.3), not down to nothing: each group GC rewrites its group's main segment,
//! which a small burst does not pay for. A group picked for its cold garbage more than its
//! log segments has its deadest cold segment merged whatever its dead share, so every GC
//! frees something. A flush that finds the budget used up waits for GC to make room
//! (`wait_for_room`), so writes slow down rather than grow the disk past the budget.
//!
//! Cold garbage is known per group from its last GC of this open: after a reopen it is
//! unknown (counted as none) until the group's next GC.

use super::{DbInner, lock};
use crate::error::Error;
use crate::event_log::event;
use crate::format::manifest::{ValueFileRecord, VersionEdit};
use crate::gc::{FileVerdict, GroupJob, GroupOutput, SetAsideFile, StayReason};
use crate::hash_layout::Role;
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
    /// The garbage on disk, estimated: `used` times the [`GarbageRatio`], plus `cold`.
    pub garbage: u64,
    /// Dead records that group GCs left in cold segments (part of `garbage`).
    pub cold: u64,
    /// Bytes of main and cold segments, less the dead records that group GCs left in
    /// cold segments.
    pub main: u64,
    /// The budget for `garbage`.
    pub budget: u64,
}

/// The garbage group GCs found the log segments had made, per log-segment byte, as a
/// moving average over GCs: the records their writes killed, in the log segments
/// themselves, the main segment or cold segments. Starts at one half (nothing observed yet) and never goes below
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

    /// Takes in one GC: `dead` bytes of garbage made since the group's last GC, for `log`
    /// bytes of log segments merged.
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
/// its log segments by number; and its cold segments by number.
fn segments(version: &Version, group: u32) -> (Vec<Arc<ValueFile>>, Vec<Arc<ValueFile>>) {
    let mut out: Vec<(Role, u64)> = version
        .state
        .value_files
        .iter()
        .filter(|(_, f)| f.group == group)
        .filter_map(|(&n, f)| f.hash_role().map(|r| (r, n)))
        .collect();
    // Main before log: the order of `Role` puts log first.
    out.sort_unstable_by_key(|&(r, n)| (r != Role::Main, r == Role::Cold, n));
    let file = |&(_, n): &(Role, u64)| version.value_files.get(&n).cloned();
    let (cold, rest): (Vec<_>, Vec<_>) = out.iter().partition(|(r, _)| *r == Role::Cold);
    (
        rest.iter().filter_map(file).collect(),
        cold.iter().filter_map(file).collect(),
    )
}

/// Keys a flush samples, at most, to learn the garbage its segments make.
const FLUSH_SAMPLE: u64 = 32;

/// A sample of the large values one flush writes into segments, evenly spread over its
/// memtable: looking their keys up in the tree the flush adds to tells how much of what
/// the flush writes kills an older record (the handle of the older version says its
/// bytes). It is an observation for [`GarbageRatio`] the moment the writes land, where a
/// group GC's comes only once garbage estimated from older observations makes one run: so
/// the estimate learns within a few flushes that a load of new keys turned into updates.
pub(crate) struct FlushSample {
    stride: u64,
    seen: u64,
    /// Sampled user keys and their new records' bytes.
    keys: Vec<(Vec<u8>, u64)>,
}

impl FlushSample {
    /// A sample for a memtable of `entries` entries.
    pub(crate) fn new(entries: u64) -> FlushSample {
        FlushSample {
            stride: (entries / FLUSH_SAMPLE).max(1),
            seen: 0,
            keys: Vec::new(),
        }
    }

    /// Offers one large value the flush writes: `handle` is its new record's.
    pub(crate) fn offer(&mut self, user_key: &[u8], handle: &[u8]) {
        self.seen += 1;
        if !self.seen.is_multiple_of(self.stride) || self.keys.len() as u64 >= FLUSH_SAMPLE {
            return;
        }
        if let Ok(h) = crate::format::handle::ValueHandle::decode(handle) {
            self.keys.push((user_key.to_vec(), u64::from(h.len)));
        }
    }

    /// Looks the sampled keys up in `version` (the tree before the flush) and feeds what
    /// they kill to the estimate. A key whose lookup fails counts as killing nothing: this
    /// is an estimate, and the reads that need the entry report the damage.
    pub(crate) fn observe(self, inner: &DbInner, version: &Version) {
        let (mut written, mut killed) = (0u64, 0u64);
        for (key, bytes) in &self.keys {
            written += bytes;
            let lookup = crate::key::lookup_key(key, crate::key::MAX_SEQNO);
            let older = super::read::tables_for_key(version, key)
                .find_map(|t| t.table.get(&lookup).ok().flatten());
            if let Some((ikey, value)) = older
                && crate::key::ParsedKey::parse(&ikey).entry_kind()
                    == Some(crate::key::EntryKind::Handle)
                && let Ok(h) = crate::format::handle::ValueHandle::decode(&value)
            {
                killed += u64::from(h.len);
            }
        }
        inner.hash_garbage.observe(killed, written);
    }
}

/// What one group holds against the reserved pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct GroupPool {
    /// Bytes of log segments.
    log: u64,
    /// Dead records its last GC left in cold segments.
    cold_dead: u64,
}

impl GroupPool {
    /// The group's garbage, estimated with `ratio` for its log segments.
    fn garbage(&self, ratio: f64) -> u64 {
        (self.log as f64 * ratio) as u64 + self.cold_dead
    }

    /// Whether the group's cold segments hold more of its garbage than its log segments
    /// made: a GC of it then merges its deadest cold segment.
    fn mostly_cold(&self, ratio: f64) -> bool {
        self.cold_dead as f64 > self.log as f64 * ratio
    }
}

/// Each group's share of the reserved pool, leaving out groups with a segment set aside
/// (no GC of theirs would run) and groups with nothing in the pool.
fn pool(inner: &DbInner, version: &Version) -> BTreeMap<u32, GroupPool> {
    let set_aside: HashSet<u64> = inner.gc_set_aside.numbers().into_iter().collect();
    let mut skip = HashSet::new();
    let mut groups: BTreeMap<u32, GroupPool> = BTreeMap::new();
    for (n, f) in &version.state.value_files {
        let (Some(role), Some(s)) = (f.hash_role(), f.sealed) else {
            continue;
        };
        if set_aside.contains(n) {
            skip.insert(f.group);
        }
        if role == Role::Log {
            groups.entry(f.group).or_default().log += s.total_bytes;
        }
    }
    for (&g, &dead) in lock(&inner.hash_cold_dead).iter() {
        groups.entry(g).or_default().cold_dead = dead;
    }
    groups.retain(|g, p| !skip.contains(g) && (p.log > 0 || p.cold_dead > 0));
    groups
}

/// The reserved pool of the current version.
pub(crate) fn reserved(inner: &DbInner) -> Reserved {
    let version = Arc::clone(&inner.super_version().version);
    let ratio = inner.hash_garbage.get();
    let groups = pool(inner, &version);
    let used = groups.values().map(|p| p.log).sum();
    let cold = groups.values().map(|p| p.cold_dead).sum();
    let main = version
        .state
        .value_files
        .values()
        .filter(|f| f.hash_role().is_some_and(|r| r != Role::Log))
        .filter_map(|f| f.sealed)
        .map(|s| s.total_bytes)
        .sum::<u64>();
    // Dead cold records are no base for more garbage.
    let cold_dead: u64 = lock(&inner.hash_cold_dead).values().sum();
    let main = main.saturating_sub(cold_dead);
    let share = (inner.opts.space_amp_target - 1.0) * main as f64;
    let floor = 2 * inner.opts.memtable_size as u64;
    Reserved {
        used,
        garbage: groups.values().map(|p| p.garbage(ratio)).sum(),
        cold,
        main,
        budget: (share as u64).max(floor),
    }
}

/// What one group GC did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupRun {
    /// No group has a log segment or known cold garbage.
    Idle,
    /// The group was collected.
    Collected(u32),
    /// The group's GC found nothing to change.
    Unchanged(u32),
    /// A segment of the group is damaged where a record may be live: the group is set
    /// aside for this open.
    SetAside(u32),
}

/// Collects the group with the most estimated garbage, if one has any.
pub(crate) fn run_once(inner: &DbInner) -> Result<GroupRun> {
    let _one_at_a_time = lock(&inner.gc_lock);
    let version = Arc::clone(&inner.super_version().version);
    let ratio = inner.hash_garbage.get();
    let Some((group, p)) = pool(inner, &version).into_iter().max_by(|a, b| {
        a.1.garbage(ratio)
            .cmp(&b.1.garbage(ratio))
            .then(b.0.cmp(&a.0))
    }) else {
        return Ok(GroupRun::Idle);
    };
    drop(version);
    let share = 1.0 - 1.0 / inner.opts.space_amp_target;
    Ok(collect(inner, group, share, p.mostly_cold(ratio))?.unwrap_or(GroupRun::Unchanged(group)))
}

/// Collects `group`, merging its cold segments once `cold_dead_share` of them is dead,
/// and its deadest cold segment in any case if `merge_deadest`; `None` if the GC found
/// nothing to change. The caller holds `gc_lock`.
fn collect(
    inner: &DbInner,
    group: u32,
    cold_dead_share: f64,
    merge_deadest: bool,
) -> Result<Option<GroupRun>> {
    let version = Arc::clone(&inner.super_version().version);
    let (inputs, cold) = segments(&version, group);
    drop(version);
    let (keep, epoch) = inputs
        .first()
        .map_or((0, 0), |f| (f.number(), f.epoch() + 1));
    if inputs.is_empty() && cold.is_empty() {
        return Ok(None);
    }
    let job = GroupJob {
        fs: Arc::clone(&inner.fs),
        dir: inner.dir.clone(),
        group,
        keep,
        epoch,
        cold_number: lock(&inner.versions).new_file_number(),
        hotness: inner.opts.hash_hotness,
        cold_dead_share,
        merge_deadest_cold: merge_deadest,
        snapshots: inner.snapshot_seqs(),
        bytes_per_sec: inner.opts.gc_bytes_per_sec,
        inputs,
        cold,
    };
    let out = match job.run() {
        Ok(out) => out,
        Err(Error::Corruption { file, offset, what }) => {
            let damaged = job
                .inputs
                .iter()
                .chain(&job.cold)
                .find(|f| f.path() == file)
                .or_else(|| job.inputs.first())
                .or_else(|| job.cold.first());
            if let Some(f) = damaged {
                inner.gc_set_aside.insert(SetAsideFile {
                    number: f.number(),
                    epoch: f.epoch(),
                    file,
                    offset,
                    key: None,
                    what,
                });
            }
            Counters::add(&inner.counters.gc_files_set_aside, 1);
            event!(
                inner.events,
                Warn,
                "group GC: group {group} set aside for this open (damage)"
            );
            return Ok(Some(GroupRun::SetAside(group)));
        }
        Err(e) => return Err(e),
    };
    if !out.changed {
        // What the group's cold segments hold dead is known now all the same.
        lock(&inner.hash_cold_dead).insert(group, out.cold_dead_bytes);
        return Ok(None);
    }
    install(inner, &job, &out)?;
    // The garbage the log segments made since the group's last GC: every dead record the
    // job found, freed or left in a cold segment, less what that GC had left dead.
    let before = lock(&inner.hash_cold_dead)
        .insert(group, out.cold_dead_bytes)
        .unwrap_or(0);
    let made = (out.dead_bytes + out.cold_dead_bytes).saturating_sub(before);
    inner.hash_garbage.observe(made, out.log_bytes);
    Counters::add(&inner.counters.gc_runs, 1);
    Counters::add(&inner.counters.gc_bytes_read, out.bytes_read);
    Counters::add(
        &inner.counters.hash_gc_bytes_not_copied,
        out.cold_bytes_not_copied,
    );
    event!(
        inner.events,
        Info,
        "group GC: group {group}: {} segments and {} cold segments merged; main {} bytes, \
         cold {} bytes written, {} bytes left in cold segments",
        job.inputs.len(),
        out.cold_merged.len(),
        out.summary.map_or(0, |s| s.file_size),
        out.cold.map_or(0, |s| s.file_size),
        out.cold_bytes_not_copied
    );
    Ok(Some(GroupRun::Collected(group)))
}

/// Makes the main output the group's main segment and the cold output one of its cold
/// segments, and deletes the inputs they replace, in one edit.
fn install(inner: &DbInner, job: &GroupJob, out: &GroupOutput) -> Result<()> {
    if out.summary.is_some() && (job.keep == 0 || Role::of(job.epoch, false) != Role::Main) {
        return Err(Error::InvalidArgument(format!(
            "group GC of group {} made a main segment without a number to keep",
            job.group
        )));
    }
    let mut edit = VersionEdit::default();
    for f in &job.inputs {
        if f.number() != job.keep || out.summary.is_none() {
            edit.deleted_value_files.push(f.number());
        }
    }
    edit.deleted_value_files
        .extend(out.cold_merged.iter().copied());
    let mut add = |number: u64, epoch: u32, s: &crate::vlog::SvTableSummary, cold: bool| {
        edit.added_value_files.push(ValueFileRecord {
            number,
            epoch,
            total_bytes: s.file_size,
            separated_bytes: s.entry_bytes,
            separated_count: s.entry_count,
        });
        edit.hash_segments.push((number, job.group));
        if cold {
            edit.hash_cold_segments.push(number);
        }
    };
    if let Some(s) = &out.summary {
        add(job.keep, job.epoch, s, false);
    }
    if let Some(s) = &out.cold {
        add(job.cold_number, 1, s, true);
    }
    let mut versions = lock(&inner.versions);
    // Only group GC changes a segment, one run at a time (`gc_lock`): the inputs are as
    // the job found them.
    // IMPORTANT: if the manifest write fails, the edit may still have reached the file:
    // keep the output (the next open removes it if unnamed).
    let version = versions.log_and_apply(edit)?;
    super::value_gc::publish_version(inner, version);
    drop(versions);
    let written: u64 = [out.summary, out.cold]
        .iter()
        .flatten()
        .map(|s| s.file_size)
        .sum();
    Counters::add(&inner.counters.gc_bytes_written, written);
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
            GroupRun::Idle | GroupRun::Unchanged(_) => return Ok(()),
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
    // Every group with a segment: a cold segment with any dead record is merged too.
    let version = Arc::clone(&inner.super_version().version);
    let groups: std::collections::BTreeSet<u32> = version
        .state
        .value_files
        .values()
        .filter(|f| f.hash_role().is_some())
        .map(|f| f.group)
        .collect();
    drop(version);
    let set_aside = inner.gc_set_aside.numbers();
    for group in groups {
        let _one_at_a_time = lock(&inner.gc_lock);
        let version = Arc::clone(&inner.super_version().version);
        let damaged = version
            .state
            .value_files
            .iter()
            .any(|(n, f)| f.group == group && f.hash_role().is_some() && set_aside.contains(n));
        drop(version);
        if damaged {
            continue;
        }
        if let Some(GroupRun::Collected(_)) = collect(inner, group, f64::MIN_POSITIVE, false)? {
            report.collected += 1;
        }
    }
    let version = Arc::clone(&inner.super_version().version);
    let set_aside: HashSet<u64> = inner.gc_set_aside.numbers().into_iter().collect();
    for (&number, f) in &version.state.value_files {
        let (Some(role), Some(s)) = (f.hash_role(), f.sealed) else {
            continue;
        };
        let reason = if set_aside.contains(&number) {
            StayReason::SetAside
        } else if role != Role::Log {
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

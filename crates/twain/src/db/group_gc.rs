//! Group GC in the hash layout (HashKV): which group to collect, running its job
//! (`gc::group`), installing the result, and the reserved space that paces it.
//!
//! **Reserved space.** A group's main segment holds what its last GC kept; the segments
//! flushes wrote since are its *log* segments, taken from a reserved pool shared by every
//! group. What counts against the pool's budget is the garbage on disk:
//! - the garbage the log segments made: the bytes of older records their entries killed
//!   (new keys kill none; overwrites, deletes and small puts over a large value kill one
//!   record of the group, wherever it lies), estimated for each segment by the flush that
//!   wrote it from a sample of its keys looked up in the tree ([`FlushSample`]), and, for
//!   a segment written before this open, as its bytes times the garbage per log byte that
//!   group GCs and flushes found ([`GarbageRatio`]);
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
//! unknown (counted as none) until the group's next GC. If a round of GC ends with the
//! pool still over its budget and nothing more to collect, waiting flushes go ahead
//! (the operator's log says so) rather than wait for nothing.

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
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// What the reserved pool knows of the garbage on disk. Thread-safe.
#[derive(Debug, Default)]
pub(crate) struct PoolState {
    /// Garbage per log-segment byte, for segments without an estimate of their own.
    ratio: GarbageRatio,
    /// Bytes of dead records each group's last GC left in its cold segments (unknown, so
    /// absent, for a group not collected since this open).
    cold_dead: std::sync::Mutex<BTreeMap<u32, u64>>,
    /// Bytes of older records each log segment's entries killed, as the flush that wrote
    /// it estimated, by segment file number (absent for segments written before this
    /// open).
    killed: std::sync::Mutex<HashMap<u64, u64>>,
    /// GC rounds that ended with the pool over its budget and nothing more to collect.
    stuck: AtomicU64,
}

/// Garbage per log-segment byte (file bytes), as a moving average over group GCs (the
/// records a group's log segments killed, in themselves, the main segment or cold
/// segments) and flushes (what their samples found): what a log segment with no estimate
/// of its own (written before this open) is assumed to hold. Starts at one half (nothing
/// observed yet). A segment counts at least [`GarbageRatio::FLOOR`] of its bytes
/// whatever its estimate, so that the pool is collected once in a while even after a
/// load of new keys, and a group's log segments do not pile up. It may exceed one:
/// deletes kill records and write only a tombstone. Thread-safe.
#[derive(Debug)]
pub(crate) struct GarbageRatio(AtomicU64);

impl Default for GarbageRatio {
    fn default() -> GarbageRatio {
        GarbageRatio(AtomicU64::new(0.5f64.to_bits()))
    }
}

impl GarbageRatio {
    /// The least share of a log segment counted as garbage.
    const FLOOR: f64 = 0.05;
    /// The most garbage one observation may claim per log byte (a segment of tombstones
    /// over large values kills far more than its own bytes).
    const MOST: f64 = 64.0;
    /// Weight of one observation in the average.
    const WEIGHT: f64 = 0.3;

    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    /// Takes in one observation: `dead` bytes of garbage made by `log` bytes of log
    /// segments.
    fn observe(&self, dead: u64, log: u64) {
        if log == 0 {
            return;
        }
        let seen = (dead as f64 / log as f64).clamp(0.0, Self::MOST);
        let next = (1.0 - Self::WEIGHT) * self.get() + Self::WEIGHT * seen;
        self.0
            .store(next.max(Self::FLOOR).to_bits(), Ordering::Relaxed);
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

/// A sample of the entries one flush writes into segments (records and tombstones alike),
/// evenly spread over its memtable: looking their keys up in the tree the flush adds to
/// tells how many bytes of older records each entry kills on average (the handle of the
/// older version says its bytes; a small or deleted older version kills nothing in the
/// group). Each group's segment is then estimated to kill its entries times that average,
/// the moment the writes land, where a group GC learns it only once it runs: so the pool
/// sees at once that a load of new keys turned into updates, or into deletes.
pub(crate) struct FlushSample {
    stride: u64,
    seen: u64,
    /// Sampled user keys.
    keys: Vec<Vec<u8>>,
    /// Entries of each group's segment.
    entries: BTreeMap<u32, u64>,
}

impl FlushSample {
    /// A sample for a memtable of `entries` entries.
    pub(crate) fn new(entries: u64) -> FlushSample {
        FlushSample {
            stride: (entries / FLUSH_SAMPLE).max(1),
            seen: 0,
            keys: Vec::new(),
            entries: BTreeMap::new(),
        }
    }

    /// Offers one entry the flush writes into `group`'s segment: a record or a tombstone.
    pub(crate) fn offer(&mut self, group: u32, user_key: &[u8]) {
        *self.entries.entry(group).or_default() += 1;
        // The first entry is always taken, so a flush of few entries has a sample.
        let take = self.seen.is_multiple_of(self.stride);
        self.seen += 1;
        if take && (self.keys.len() as u64) < FLUSH_SAMPLE {
            self.keys.push(user_key.to_vec());
        }
    }

    /// Looks the sampled keys up in `version` (the tree before the flush): the bytes of
    /// older records each group's segment is estimated to kill. A lookup that fails counts
    /// as killing nothing (not as the deeper version behind it): this is an estimate, and
    /// the reads that need the entry report the damage.
    pub(crate) fn estimate(&self, version: &Version) -> BTreeMap<u32, u64> {
        let mut killed = 0u64;
        for key in &self.keys {
            let lookup = crate::key::lookup_key(key, crate::key::MAX_SEQNO);
            let mut older = None;
            for t in super::read::tables_for_key(version, key) {
                match t.table.get(&lookup) {
                    Ok(Some(found)) => {
                        older = Some(found);
                        break;
                    }
                    Ok(None) => {}
                    Err(_) => break,
                }
            }
            if let Some((ikey, value)) = older
                && crate::key::ParsedKey::parse(&ikey).entry_kind()
                    == Some(crate::key::EntryKind::Handle)
                && let Ok(h) = crate::format::handle::ValueHandle::decode(&value)
            {
                killed += u64::from(h.len);
            }
        }
        let per_entry = killed as f64 / self.keys.len().max(1) as f64;
        self.entries
            .iter()
            .map(|(&g, &n)| (g, (n as f64 * per_entry) as u64))
            .collect()
    }
}

/// Records what a flush estimated its segments kill (`segments`: file number, file
/// bytes, estimated bytes killed), once the edit that adds them is applied; and feeds the
/// ratio that segments without an estimate are counted by.
pub(crate) fn record_flush(inner: &DbInner, segments: &[(u64, u64, u64)]) {
    let pool = &inner.hash_pool;
    let mut killed = lock(&pool.killed);
    for &(number, _, k) in segments {
        killed.insert(number, k);
    }
    drop(killed);
    let bytes = segments.iter().map(|s| s.1).sum();
    pool.ratio
        .observe(segments.iter().map(|s| s.2).sum(), bytes);
}

/// What one group holds against the reserved pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct GroupPool {
    /// Bytes of log segments.
    log: u64,
    /// The garbage its log segments made, estimated.
    log_garbage: u64,
    /// Dead records its last GC left in cold segments.
    cold_dead: u64,
}

impl GroupPool {
    /// The group's garbage, estimated.
    fn garbage(&self) -> u64 {
        self.log_garbage + self.cold_dead
    }

    /// Whether the group's cold segments hold more of its garbage than its log segments
    /// made: a GC of it then merges its deadest cold segment.
    fn mostly_cold(&self) -> bool {
        self.cold_dead > self.log_garbage
    }
}

/// The garbage a log segment of `bytes` bytes is counted for: its flush's estimate, or
/// (written before this open) its bytes times `ratio`; at least the floor share.
fn log_garbage(bytes: u64, estimate: Option<u64>, ratio: f64) -> u64 {
    let floor = (bytes as f64 * GarbageRatio::FLOOR) as u64;
    estimate.unwrap_or((bytes as f64 * ratio) as u64).max(floor)
}

/// Each group's share of the reserved pool, leaving out groups with a segment set aside
/// (no GC of theirs would run) and groups with nothing in the pool.
fn pool(inner: &DbInner, version: &Version) -> BTreeMap<u32, GroupPool> {
    let set_aside: HashSet<u64> = inner.gc_set_aside.numbers().into_iter().collect();
    let mut skip = HashSet::new();
    let mut groups: BTreeMap<u32, GroupPool> = BTreeMap::new();
    let ratio = inner.hash_pool.ratio.get();
    let killed = lock(&inner.hash_pool.killed);
    for (n, f) in &version.state.value_files {
        let (Some(role), Some(s)) = (f.hash_role(), f.sealed) else {
            continue;
        };
        if set_aside.contains(n) {
            skip.insert(f.group);
        }
        if role == Role::Log {
            let p = groups.entry(f.group).or_default();
            p.log += s.total_bytes;
            p.log_garbage += log_garbage(s.total_bytes, killed.get(n).copied(), ratio);
        }
    }
    drop(killed);
    for (&g, &dead) in lock(&inner.hash_pool.cold_dead).iter() {
        groups.entry(g).or_default().cold_dead = dead;
    }
    groups.retain(|g, p| !skip.contains(g) && (p.log > 0 || p.cold_dead > 0));
    groups
}

/// The reserved pool of the current version.
pub(crate) fn reserved(inner: &DbInner) -> Reserved {
    let version = Arc::clone(&inner.super_version().version);
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
    let cold_dead: u64 = lock(&inner.hash_pool.cold_dead).values().sum();
    let main = main.saturating_sub(cold_dead);
    let share = (inner.opts.space_amp_target - 1.0) * main as f64;
    let floor = 2 * inner.opts.memtable_size as u64;
    Reserved {
        used,
        garbage: groups.values().map(GroupPool::garbage).sum(),
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
    let Some((group, p)) = pool(inner, &version)
        .into_iter()
        .max_by(|a, b| a.1.garbage().cmp(&b.1.garbage()).then(b.0.cmp(&a.0)))
    else {
        return Ok(GroupRun::Idle);
    };
    drop(version);
    let share = 1.0 - 1.0 / inner.opts.space_amp_target;
    Ok(collect(inner, group, share, p.mostly_cold())?.unwrap_or(GroupRun::Unchanged(group)))
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
        // No segment, so no cold garbage either.
        lock(&inner.hash_pool.cold_dead).remove(&group);
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
        closing: Arc::clone(&inner.gc_closing),
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
    let pool = &inner.hash_pool;
    if !out.changed {
        // What the group's cold segments hold dead is known now all the same.
        lock(&pool.cold_dead).insert(group, out.cold_dead_bytes);
        return Ok(None);
    }
    // The cold garbage is set before the new version is published, so the pool never
    // pairs the new segments with the old figure.
    let before = lock(&pool.cold_dead).insert(group, out.cold_dead_bytes);
    install(inner, &job, &out)?;
    {
        let mut killed = lock(&pool.killed);
        for f in &job.inputs {
            killed.remove(&f.number());
        }
    }
    // The garbage the log segments made since the group's last GC: every dead record the
    // job found, freed or left in a cold segment, less what that GC had left dead. At a
    // group's first GC since this open, what earlier GCs left is unknown: no observation.
    if let Some(before) = before {
        let made = (out.dead_bytes + out.cold_dead_bytes).saturating_sub(before);
        let log_file_bytes = job
            .inputs
            .iter()
            .filter(|f| Role::of(f.epoch(), false) == Role::Log)
            .map(|f| f.total_bytes())
            .sum();
        pool.ratio.observe(made, log_file_bytes);
    }
    Counters::add(&inner.counters.gc_runs, 1);
    Counters::add(&inner.counters.gc_bytes_read, out.bytes_read);
    Counters::add(
        &inner.counters.hash_gc_bytes_not_copied,
        out.cold_bytes_not_copied,
    );
    event!(
        inner.events,
        Info,
        "group GC: group {group}: {} segments ({} bytes of log records) and {} cold segments \
         merged; main {} bytes, cold {} bytes written, {} bytes left in cold segments",
        job.inputs.len(),
        out.log_bytes,
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
        // The kept number is replaced by the main output, or left as it is, or deleted.
        let gone = out.summary.is_none() && !out.main_kept;
        if f.number() != job.keep || gone {
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
    let mut unchanged = HashSet::new();
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
            // The group's estimate is corrected now, so the next pick is another group's,
            // unless it is this one again.
            GroupRun::Unchanged(g) if unchanged.insert(g) => {}
            GroupRun::Unchanged(_) => {
                // Nothing more to collect: flushes waiting for room would wait for nothing.
                let r = reserved(inner);
                if r.garbage >= r.budget {
                    inner.hash_pool.stuck.fetch_add(1, Ordering::Relaxed);
                    inner.bg.notify_all();
                }
                return Ok(());
            }
            // A group collected twice in one round while quiet: the writes came back.
            GroupRun::Collected(g) if !collected.insert(g) && quiet => return Ok(()),
            _ => {}
        }
        inner.bg.notify_all();
    }
}

/// Waits while the reserved pool is full, so a flush does not grow the disk past the
/// budget; returns at once without background GC (nothing would make room), on shutdown,
/// after a background error, or when a round of GC ended with nothing more to collect.
pub(crate) fn wait_for_room(inner: &DbInner) -> Result<()> {
    if !inner.opts.gc_enabled {
        return Ok(());
    }
    let start = Instant::now();
    let stuck = inner.hash_pool.stuck.load(Ordering::Relaxed);
    loop {
        let r = reserved(inner);
        if r.garbage < r.budget {
            break;
        }
        if inner.hash_pool.stuck.load(Ordering::Relaxed) != stuck {
            event!(
                inner.events,
                Warn,
                "flush: the reserved pool holds {} bytes of garbage against a budget of {}, \
                 and no group GC can reduce it: the flush goes ahead",
                r.garbage,
                r.budget
            );
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

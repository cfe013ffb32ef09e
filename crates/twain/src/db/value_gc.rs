//! Scheduling value GC runs and installing their results. A run is made from the
//! database's state as a [`Job`] (the file, its drop set and counts, the options); in
//! drop-records mode the job reads the file and writes the SVTable from that alone
//! (`gc::rewrite`), and this module installs it: the new epoch's drop file, the manifest
//! edit, the super version. Damaged files are set aside here (`gc::damage`). One run at a
//! time (`DbInner::gc_lock`).

use super::{DbInner, SuperVersion, lock};
use crate::event_log::event;
use crate::format::file_header::FILE_HEADER_LEN;
use crate::format::manifest::{DropDelta, ValueFileOrigin, ValueFileRecord, VersionEdit};
use crate::gc::{
    Choice, FileVerdict, GcReport, Job, Pace, Rewritten, Run, SetAsideFile, StayReason, Throttle,
    Victim, choose, pick, pick_tail,
};
use crate::key::SeqNo;
use crate::options::{GcEvent, GcMode};
use crate::seq_set::SeqSet;
use crate::stats::Counters;
use crate::vlog::{DropIndex, FileDrops, ValueFile};
use crate::{Error, Result};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What one run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunOutcome {
    /// No file was below the threshold.
    Idle,
    /// The file was collected.
    Collected(u64),
    /// The file could not be collected now (lsm-lookup mode: a live snapshot still sees
    /// some of its records); try others.
    Skipped(u64),
    /// The file is damaged where a live record may lie: it is set aside for good.
    SetAside(u64),
}

/// Collects the `victim` (not in `skip` nor set aside), if there is one.
pub(crate) fn run_once(
    inner: &DbInner,
    skip: &mut HashSet<u64>,
    victim: Victim,
    pace: Option<&dyn Pace>,
) -> Result<RunOutcome> {
    let _one_at_a_time = lock(&inner.gc_lock);
    super::punch::punch_ready(inner)?;
    let version = Arc::clone(&inner.super_version().version);
    skip.extend(inner.gc_set_aside.numbers());
    // A file whose recorded runs could not be punched is rewritten first, whatever its
    // live fraction.
    let forced = inner
        .gc_punch
        .take_rewrite()
        .filter(|n| !skip.contains(n) && version.state.punched.contains_key(n));
    let picked = || match victim {
        Victim::Below(threshold) => pick(&version.state, threshold, skip),
        Victim::Tail(horizon) => pick_tail(&version.state, skip, horizon),
    };
    let Some(number) = forced.or_else(picked) else {
        return Ok(RunOutcome::Idle);
    };
    let Some(file) = version.value_files.get(&number).cloned() else {
        return Ok(RunOutcome::Idle);
    };
    let separated_count = version
        .state
        .value_files
        .get(&number)
        .and_then(|f| f.sealed)
        .map_or(0, |s| s.separated_count);
    let punched = version
        .state
        .punched
        .get(&number)
        .cloned()
        .unwrap_or_default();
    drop(version);
    let job = make_job(inner, Arc::clone(&file), separated_count, punched);
    emit(inner, GcEvent::Started { file: number });
    let run = match inner.opts.gc_mode {
        GcMode::DropRecords => rewrite(inner, &job, forced.is_none(), pace),
        GcMode::LsmLookup | GcMode::Vlog => super::relocate::relocate(inner, &job, pace),
    };
    if !matches!(&run, Err(e) if !e.is_corruption()) {
        emit(inner, GcEvent::Finished { file: number });
    }
    let set_aside = match run {
        Ok(Run::Done) => {
            event!(
                inner.events,
                Info,
                "value GC: collected value file {number}"
            );
            Counters::add(&inner.counters.gc_runs, 1);
            return Ok(RunOutcome::Collected(number));
        }
        Ok(Run::Punched) => {
            event!(
                inner.events,
                Info,
                "value GC: punched dead runs of value file {number}"
            );
            super::punch::punch_ready(inner)?;
            return Ok(RunOutcome::Collected(number));
        }
        Ok(Run::NotNow) => {
            skip.insert(number);
            return Ok(RunOutcome::Skipped(number));
        }
        Ok(Run::Damaged(d)) => SetAsideFile {
            number,
            epoch: file.epoch(),
            file: file.path().to_path_buf(),
            offset: d.offset,
            key: d.key,
            what: d.what,
        },
        // Corruption met anywhere else while collecting the file (lsm-lookup mode: a
        // damaged table): the file's records cannot be judged either.
        Err(Error::Corruption {
            file: path,
            offset,
            what,
        }) => SetAsideFile {
            number,
            epoch: file.epoch(),
            file: path,
            offset,
            key: None,
            what,
        },
        Err(e) => return Err(e),
    };
    Counters::add(&inner.counters.gc_files_set_aside, 1);
    event!(
        inner.events,
        Warn,
        "value GC: value file {number} set aside for this open: {} at offset {}: {}",
        set_aside.file.display(),
        set_aside.offset,
        set_aside.what
    );
    inner.gc_set_aside.insert(set_aside);
    skip.insert(number);
    Ok(RunOutcome::SetAside(number))
}

/// Collects until no file is below `threshold` (or every such file had to be skipped or
/// set aside). Returns the number of files collected; adds the skipped ones to `pinned`.
pub(crate) fn run_all(inner: &DbInner, threshold: f64, pinned: &mut HashSet<u64>) -> Result<u64> {
    let mut runs = 0;
    let mut skip = HashSet::new();
    loop {
        match run_once(inner, &mut skip, Victim::Below(threshold), None)? {
            RunOutcome::Idle => return Ok(runs),
            RunOutcome::Collected(_) => runs += 1,
            RunOutcome::Skipped(n) => {
                pinned.insert(n);
            }
            RunOutcome::SetAside(_) => {}
        }
    }
}

/// The live fraction under which a complete GC (`Db::gc_report`) collects a file, unless
/// `gc_threshold` is higher: every file at least a tenth dead, so that what stays is at
/// most about 1.1 times the live bytes plus the active file.
pub(crate) const COMPLETE_GC_THRESHOLD: f64 = 0.9;

/// Whether the active value file `log` is worth sealing for GC: at least `min_len` bytes
/// and a file block written after its header, and less than `threshold` of what it holds
/// live separated data. Inline entries and dead separated entries are garbage once
/// flushed (the seal freezes the memtable, whose flush records the sealed file). Dead
/// means dropped, or (per the newest live-data pass) no newest version points at it: the
/// flush of the sealed file's memtable drops the versions it shadows. A pass older than
/// the newest writes undercounts them: at worst a log is sealed a little early.
pub(crate) fn worth_sealing(
    inner: &DbInner,
    log: &ValueFile,
    threshold: f64,
    min_len: u64,
) -> bool {
    let written = log.total_bytes();
    if written < min_len.max(FILE_HEADER_LEN as u64 + SEAL_MIN_BYTES) {
        return false;
    }
    let dropped = inner
        .super_version()
        .version
        .state
        .value_files
        .get(&log.number())
        .map_or(0, |f| f.dropped_bytes);
    let mut live = log.separated_bytes().saturating_sub(dropped);
    // The last pass's count of the file, plus what was written to it since: a pass that
    // predates the file, or writes after it, must not make the file look dead.
    if let Some(pass) = inner.live_cache.last()
        && let Ok(data) = &pass.outcome
        && let Some(&then) = pass.separated_then.get(&log.number())
    {
        let counted = data.separated.get(&log.number()).copied().unwrap_or(0);
        live = live.min(counted + log.separated_bytes().saturating_sub(then));
    }
    (live as f64) < threshold * written as f64
}

/// Seals the active value file if [`worth_sealing`] says so (see `write::seal_active`);
/// returns whether it did.
pub(crate) fn seal_active_if_worth(inner: &DbInner, threshold: f64, min_len: u64) -> Result<bool> {
    let sealed =
        super::write::seal_active(inner, |log| worth_sealing(inner, log, threshold, min_len))?;
    if sealed {
        Counters::add(&inner.counters.logs_sealed_for_gc, 1);
    }
    Ok(sealed)
}

/// A log holding less than this after its header is never sealed for GC: too little to
/// gain for a new file and a memtable flush.
const SEAL_MIN_BYTES: u64 = 4096;

/// Rounds of a complete GC at most: a round's collection (lsm-lookup mode relocates into
/// the log) can leave new garbage for the next, but never without bound.
const COMPLETE_GC_ROUNDS: usize = 4;

/// A complete GC: flushes, runs garbage compactions until no table shadows another (so
/// every dead version has its drop record), seals the active value file when it holds
/// enough garbage, and collects every file under the threshold; repeats while a round
/// gains something. Reports why each value file left stays.
pub(crate) fn complete(inner: &DbInner) -> Result<GcReport> {
    let _user_waits = super::pacing::ManualGc::start(inner);
    if inner.opts.value_layout == crate::options::ValueLayout::Hash {
        return super::group_gc::complete(inner);
    }
    if inner.opts.gc_mode == GcMode::Vlog {
        return complete_vlog(inner);
    }
    let threshold = inner.opts.gc_threshold.max(COMPLETE_GC_THRESHOLD);
    let mut report = GcReport {
        threshold,
        ..GcReport::default()
    };
    let mut pinned = HashSet::new();
    // The background worker may collect a file this GC made collectable (it wakes on every
    // flush): count its runs too.
    let runs = |c: &Counters| Counters::get(&c.gc_runs) + Counters::get(&c.gc_punch_runs);
    let runs_before = runs(&inner.counters);
    let punch_runs_before = Counters::get(&inner.counters.gc_punch_runs);
    for _ in 0..COMPLETE_GC_ROUNDS {
        super::flush::flush_all(inner)?;
        report.garbage_compactions += super::compact::garbage_compact_all(inner)?;
        let sealed = seal_active_if_worth(inner, threshold, 0)?;
        if sealed {
            report.logs_sealed += 1;
            // The flush records the sealed file in the manifest: GC can pick it.
            super::flush::flush_all(inner)?;
        }
        pinned.clear();
        let collected = run_all(inner, threshold, &mut pinned)?;
        if collected == 0 && !sealed {
            break;
        }
    }
    // The space punching frees is part of the result: wait (boundedly) for readers of
    // older versions to let go; a file whose runs could not be punched is rewritten.
    super::punch::wait_for_punches(inner)?;
    if inner.gc_punch.rewrite_pending() {
        run_all(inner, threshold, &mut pinned)?;
    }
    report.collected = runs(&inner.counters).saturating_sub(runs_before);
    report.punched = Counters::get(&inner.counters.gc_punch_runs).saturating_sub(punch_runs_before);
    report.files = verdicts(inner, threshold, &pinned, None);
    Ok(report)
}

/// A complete GC in vlog mode (WiscKey's circular log): flushes, makes a fresh live-data
/// pass, seals the active value file when it holds the garbage, then collects the log's
/// tail, oldest file first, each at most once, until the space amplification is at most
/// the idle target (`pacing::idle_target`: 1.1 for the default target) or no sealed file
/// is left. Files it did not reach stay `WithinTarget`.
fn complete_vlog(inner: &DbInner) -> Result<GcReport> {
    let threshold = inner.opts.gc_threshold.max(COMPLETE_GC_THRESHOLD);
    let mut report = GcReport {
        threshold,
        ..GcReport::default()
    };
    let runs_before = Counters::get(&inner.counters.gc_runs);
    super::flush::flush_all(inner)?;
    super::space::refresh(inner)?;
    if seal_active_if_worth(inner, threshold, 0)? {
        report.logs_sealed += 1;
        super::flush::flush_all(inner)?;
    }
    let horizon = lock(&inner.write.state).log.value_file().number();
    let goal = super::pacing::idle_target(inner.opts.space_amp_target);
    let mut skip = HashSet::new();
    let mut pinned = HashSet::new();
    // A directory listing that fails leaves the figure unknown: the collection ends there.
    while super::pacing::current_amp(inner)
        .unwrap_or(None)
        .is_some_and(|amp| amp > goal)
    {
        match run_once(inner, &mut skip, Victim::Tail(horizon), None)? {
            RunOutcome::Idle => break,
            RunOutcome::Collected(n) => {
                skip.insert(n);
            }
            RunOutcome::Skipped(n) => {
                pinned.insert(n);
            }
            RunOutcome::SetAside(_) => {}
        }
    }
    report.collected = Counters::get(&inner.counters.gc_runs).saturating_sub(runs_before);
    let live = super::space::refresh(inner)?;
    report.files = verdicts(inner, threshold, &pinned, Some(&live));
    Ok(report)
}

/// Why each value file stays. With `live` (vlog mode, whose drop counts say nothing),
/// live fractions come from that live-data pass, and a file GC did not reach stays
/// `WithinTarget`.
fn verdicts(
    inner: &DbInner,
    threshold: f64,
    pinned: &HashSet<u64>,
    live: Option<&super::space::LiveData>,
) -> Vec<FileVerdict> {
    let version = Arc::clone(&inner.super_version().version);
    let set_aside: HashSet<u64> = inner.gc_set_aside.numbers().into_iter().collect();
    let mut out = Vec::new();
    for (&number, state) in &version.state.value_files {
        let Some(file) = version.value_files.get(&number) else {
            continue;
        };
        let live_fraction = match (live, state.sealed) {
            (Some(live), Some(s)) if s.total_bytes > 0 => {
                let here = live.separated.get(&number).copied().unwrap_or(0);
                (here as f64 / s.total_bytes as f64).min(1.0)
            }
            _ => state.live_fraction(),
        };
        let reason = if state.sealed.is_none() {
            StayReason::Active
        } else if state.origin == ValueFileOrigin::Transient {
            StayReason::Transient
        } else if set_aside.contains(&number) {
            StayReason::SetAside
        } else if pinned.contains(&number) {
            StayReason::PinnedBySnapshot
        } else if live.is_some() {
            StayReason::WithinTarget
        } else if state.unpunched_dropped_bytes() == 0 && live_fraction >= threshold {
            StayReason::Live
        } else if live_fraction >= threshold {
            StayReason::BelowThreshold
        } else {
            // Picked under the threshold yet still here: a snapshot or a concurrent run.
            StayReason::PinnedBySnapshot
        };
        out.push(FileVerdict {
            number,
            total_bytes: state
                .sealed
                .map_or_else(|| file.total_bytes(), |s| s.total_bytes),
            live_fraction,
            reason,
        });
    }
    out
}

/// The job for `file`, with its current drop set and punched runs.
fn make_job(
    inner: &DbInner,
    file: Arc<ValueFile>,
    separated_count: u64,
    punched: Vec<(u64, u64)>,
) -> Job {
    let dropped: SeqSet = inner
        .drop_index
        .lock()
        .get(&file.number())
        .filter(|d| d.epoch == file.epoch())
        .map(|d| d.seqs.clone())
        .unwrap_or_default();
    Job {
        fs: Arc::clone(&inner.fs),
        dir: inner.dir.clone(),
        file,
        dropped,
        separated_count,
        punched,
        bytes_per_sec: inner.opts.gc_bytes_per_sec,
        closing: Arc::clone(&inner.gc_closing),
        listener: inner.opts.gc_listener.clone(),
    }
}

/// A drop-records run: the job reads the file and, if `may_punch` and its garbage is
/// clustered enough (`gc::choose`), punches its dead runs; otherwise writes the SVTable,
/// which is then installed.
fn rewrite(inner: &DbInner, job: &Job, may_punch: bool, pace: Option<&dyn Pace>) -> Result<Run> {
    let mut throttle = Throttle::new(job.bytes_per_sec)
        .paced(pace)
        .until_closed(&job.closing);
    // Dead records are neither copied nor, in an SVTable, read.
    let (input, read) = job.read(&mut throttle, true)?;
    Counters::add(&inner.counters.gc_bytes_read, read);
    let input = match input {
        Ok(input) => input,
        Err(damage) => return Ok(Run::Damaged(damage)),
    };
    let number = job.file.number();
    job.emit(GcEvent::LiveRecordsRead {
        file: number,
        live: input.records.len() as u64,
    });
    if may_punch
        && inner.gc_punch.supported()
        && !crate::gc::shared_file(inner.fs.as_ref(), job.file.path())?
    {
        let live = input.records.iter().map(|r| u64::from(r.len)).sum();
        if let Choice::Punch(runs) = choose(&input.spans, live, crate::gc::PUNCH_BLOCK) {
            let run = super::punch::punch(inner, job, &runs)?;
            if matches!(run, Run::Punched) {
                Counters::add(&inner.counters.gc_corrupt_dead_records, input.corrupt_dead);
                emit(inner, GcEvent::Installed { file: number });
            }
            return Ok(run);
        }
    }
    // The handles of the kept records go stale with the install: which tables hold them
    // is worth knowing only to background refresh compactions.
    let tally = if inner.opts.gc_enabled {
        let version = Arc::clone(&inner.super_version().version);
        let kept = input.records.iter().map(|r| (&r.key[..], r.seq));
        super::stale::tally_kept(&version, kept, super::stale::TALLY_STRIDE)
    } else {
        HashMap::new()
    };
    let out = crate::gc::write_svtable(job, input.records, &mut throttle)?;
    if !install_rewrite(inner, job, &out, tally)? {
        return Ok(Run::NotNow);
    }
    Counters::add(&inner.counters.gc_corrupt_dead_records, input.corrupt_dead);
    release_memtable_pin(inner, number, job.file.epoch())?;
    emit(inner, GcEvent::Installed { file: number });
    Ok(Run::Done)
}

/// Reports a step to the listener, if any.
pub(crate) fn emit(inner: &DbInner, event: GcEvent) {
    if let Some(listener) = &inner.opts.gc_listener {
        listener(event);
    }
}

/// Makes `out` the job's file's current epoch, and records `tally` (the tables holding the
/// handles it makes stale) for refresh compactions. Returns false (and removes the
/// output) if the file was deleted meanwhile.
fn install_rewrite(
    inner: &DbInner,
    job: &Job,
    out: &Rewritten,
    tally: HashMap<u64, u64>,
) -> Result<bool> {
    let (fs, dir) = (inner.fs.as_ref(), &inner.dir);
    let (number, epoch) = (job.file.number(), job.file.epoch());
    // Install under the drop lock: drops that flushes and compactions recorded while this
    // run was copying are carried over to the new epoch, and no drop can be appended to
    // the old epoch's file after it is read here.
    let mut drops = inner.drop_index.lock();
    let mut carried: Vec<(SeqNo, u32)> = drops
        .get(&number)
        .filter(|d| d.epoch == epoch)
        .map(|d| {
            d.seqs
                .difference(&job.dropped)
                .filter_map(|s| out.lens.get(s).map(|&l| (*s, l)))
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
        let _ = fs.remove_file(&out.path);
        return Ok(false);
    }
    let mut edit = VersionEdit::default();
    let mut written = 0u64;
    match out.summary {
        None => edit.deleted_value_files.push(number),
        Some(s) => {
            written += s.file_size;
            written += DropIndex::write_epoch_file(fs, dir, number, out.epoch, &carried)?;
            edit.added_value_files.push(ValueFileRecord {
                number,
                epoch: out.epoch,
                total_bytes: s.file_size,
                separated_bytes: s.entry_bytes,
                separated_count: s.entry_count,
            });
            if !carried.is_empty() {
                edit.value_file_drops.push(DropDelta {
                    number,
                    epoch: out.epoch,
                    count: carried.len() as u64,
                    bytes: carried.iter().map(|&(_, l)| u64::from(l)).sum(),
                });
            }
        }
    }
    // IMPORTANT: if the manifest write fails, the edit may still have reached the file:
    // keep the SVTable and its drop file (the next open removes them if unnamed).
    let version = versions.log_and_apply(edit)?;
    let generation = publish_version(inner, Arc::clone(&version));
    drop(versions);
    // Outside `versions`: a pass that starts meanwhile has seen this run, and its
    // generation prunes the run at the next pick.
    inner.gc_tallies.add(generation, number, tally, &version);
    match out.summary {
        Some(_) => {
            let bytes = carried.iter().map(|&(_, l)| u64::from(l)).sum();
            drops.insert(
                number,
                FileDrops {
                    epoch: out.epoch,
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
    Ok(true)
}

/// Publishes `version`, just installed by a value GC edit, to readers; returns the version
/// generation it is published at.
/// REQUIRES: the caller holds `versions`.
pub(crate) fn publish_version(inner: &DbInner, version: Arc<crate::version::Version>) -> u64 {
    inner.update_super_version(|sv| SuperVersion {
        mem: Arc::clone(&sv.mem),
        imms: sv.imms.clone(),
        version,
    })
}

/// Handle fix-ups in the active memtable pin the epoch they point into, which keeps the
/// retired file on disk until that memtable is flushed. In a phase of reads alone the
/// memtable never fills, so freeze it now: the flush then releases the old file.
fn release_memtable_pin(inner: &DbInner, number: u64, retired_epoch: u32) -> Result<()> {
    let mut ws = lock(&inner.write.state);
    if ws.mem.pinned_file(number, retired_epoch).is_some() && !ws.mem.is_empty() {
        super::write::switch_memtable(inner, &mut ws)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::fs::{Fs, MemFs};
    use crate::{Db, Options};
    use std::sync::Arc;

    /// A log whose values were all written after the last live-data pass is live: the
    /// pass's count of it (nothing) plus what was written since. It was sealed as garbage,
    /// costing a new log file and an empty flush, when the pass's count stood for it all.
    #[test]
    fn a_log_written_after_the_last_pass_is_not_worth_sealing() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let opts = Options::default()
            .fs(fs)
            .gc_enabled(false)
            .inline_threshold(64);
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        db.refresh_live_bytes().unwrap();
        for i in 0..200u32 {
            db.put(format!("k{i:04}"), vec![b'v'; 1000]).unwrap();
        }
        assert!(!super::seal_active_if_worth(&db.inner, 0.5, 0).unwrap());
        // Once the values are overwritten and a pass has seen it, the log is worth sealing.
        for i in 0..200u32 {
            db.put(format!("k{i:04}"), vec![b'w'; 1000]).unwrap();
            db.put(format!("k{i:04}"), vec![b'x'; 1000]).unwrap();
        }
        db.refresh_live_bytes().unwrap();
        assert!(super::seal_active_if_worth(&db.inner, 0.5, 0).unwrap());
    }
}

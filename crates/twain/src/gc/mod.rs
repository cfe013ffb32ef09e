//! Value GC: reclaiming the space of dead records in value files.
//!
//! Picking is pure ([`pick`]). A run reads the chosen file's records ([`records`]) and then,
//! by mode, either rewrites the live ones into a sorted SVTable with the next epoch
//! (`rewrite`, NovKV: validity from drop records, no LSM lookups, handles fixed lazily on
//! read) or relocates them to the log head and writes their handles back (`relocate`,
//! WiscKey: validity by LSM lookup). One run at a time (`DbInner::gc_lock`). Damage in the
//! file is judged by [`damage`]: GC skips dead records it cannot read, and sets aside a file
//! whose damage may hide a live record.

mod damage;
mod log_scan;
mod records;
mod relocate;
mod rewrite;

pub use damage::SetAsideFile;
pub(crate) use damage::{Damage, SetAsideList, Verdict, judge};
pub(crate) use records::{Record, read_records};
pub(crate) use relocate::{newest_points_into, snapshot_sees};

use crate::db::DbInner;
use crate::key::SeqNo;
use crate::options::{GcEvent, GcMode};
use crate::stats::Counters;
use crate::version::VersionState;
use crate::vlog::ValueFile;
use crate::{Error, Result};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The value file to collect: the sealed file with the lowest fraction of live bytes,
/// if that fraction is below `threshold`, leaving out the files in `skip`.
pub fn pick(state: &VersionState, threshold: f64, skip: &HashSet<u64>) -> Option<u64> {
    state
        .value_files
        .iter()
        .filter(|(n, f)| f.sealed.is_some_and(|s| s.separated_bytes > 0) && !skip.contains(n))
        .map(|(&n, f)| (n, f.valid_rate()))
        .filter(|&(_, rate)| rate < threshold)
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(n, _)| n)
}

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

/// How a run of one mode ended.
#[derive(Debug)]
pub(crate) enum Run {
    /// The file was collected.
    Done,
    /// Not now: the file is gone, or a live snapshot still needs a record.
    NotNow,
    /// Damage that may hide a live record: the file must be set aside.
    Damaged(Damage),
}

/// What a run read of the file it collects, if it may go on.
pub(crate) struct Input {
    /// The intact records (without the dropped ones if they were skipped).
    pub records: Vec<Record>,
    /// The drop set of the file's epoch when the read began.
    pub dropped: HashSet<SeqNo>,
    /// Records lost to damage, all dead.
    pub corrupt_dead: u64,
}

/// Reads the records of `file` (at the epoch the run collects) and judges any damage met:
/// `Err` with the damage if the file must be set aside.
pub(crate) fn read_input(
    inner: &DbInner,
    file: &ValueFile,
    throttle: &mut Throttle,
    skip_dropped: bool,
) -> Result<std::result::Result<Input, Damage>> {
    let (number, epoch) = (file.number(), file.epoch());
    let dropped: HashSet<SeqNo> = inner
        .drop_index
        .lock()
        .get(&number)
        .filter(|d| d.epoch == epoch)
        .map(|d| d.seqs.clone())
        .unwrap_or_default();
    let scan = read_records(inner.fs.as_ref(), file, throttle, &dropped, skip_dropped)?;
    Counters::add(&inner.counters.gc_bytes_read, scan.read);
    let separated_count = inner
        .super_version()
        .version
        .state
        .value_files
        .get(&number)
        .and_then(|f| f.sealed)
        .map_or(0, |s| s.separated_count);
    Ok(match judge(&scan, separated_count, &dropped) {
        Verdict::SetAside(d) => Err(d),
        Verdict::Collect { corrupt_dead } => Ok(Input {
            records: scan.records,
            dropped,
            corrupt_dead,
        }),
    })
}

/// The damage for which value GC would set `file` aside, if any: `file` holds
/// `separated_count` records, those in `dropped` dead. For `twain check`.
pub(crate) fn would_set_aside(
    fs: &dyn crate::fs::Fs,
    file: &ValueFile,
    separated_count: u64,
    dropped: Option<HashSet<SeqNo>>,
) -> Result<Option<Damage>> {
    let dropped = dropped.unwrap_or_default();
    let scan = read_records(fs, file, &mut Throttle::new(0), &dropped, true)?;
    Ok(match judge(&scan, separated_count, &dropped) {
        Verdict::SetAside(d) => Some(d),
        Verdict::Collect { .. } => None,
    })
}

/// Collects the best candidate not in `skip` nor set aside, if any.
pub(crate) fn run_once(inner: &DbInner, skip: &mut HashSet<u64>) -> Result<RunOutcome> {
    let _one_at_a_time = crate::db::lock(&inner.gc_lock);
    let version = std::sync::Arc::clone(&inner.super_version().version);
    skip.extend(inner.gc_set_aside.numbers());
    let Some(file) = pick(&version.state, inner.opts.gc_threshold, skip) else {
        return Ok(RunOutcome::Idle);
    };
    let Some(value_file) = version.value_files.get(&file).cloned() else {
        return Ok(RunOutcome::Idle);
    };
    drop(version);
    emit(inner, GcEvent::Started { file });
    let run = match inner.opts.gc_mode {
        GcMode::DropRecords => rewrite::rewrite(inner, file),
        GcMode::LsmLookup => relocate::relocate(inner, file),
    };
    if !matches!(&run, Err(e) if !e.is_corruption()) {
        emit(inner, GcEvent::Finished { file });
    }
    let damage = match run {
        Ok(Run::Done) => {
            Counters::add(&inner.counters.gc_runs, 1);
            return Ok(RunOutcome::Collected(file));
        }
        Ok(Run::NotNow) => {
            skip.insert(file);
            return Ok(RunOutcome::Skipped(file));
        }
        Ok(Run::Damaged(d)) => SetAsideFile {
            number: file,
            epoch: value_file.epoch(),
            file: value_file.path().to_path_buf(),
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
            number: file,
            epoch: value_file.epoch(),
            file: path,
            offset,
            key: None,
            what,
        },
        Err(e) => return Err(e),
    };
    Counters::add(&inner.counters.gc_files_set_aside, 1);
    inner.gc_set_aside.insert(damage);
    skip.insert(file);
    Ok(RunOutcome::SetAside(file))
}

/// Collects until no file is below the threshold (or every such file had to be skipped).
/// Returns the number of files collected.
pub(crate) fn run_all(inner: &DbInner) -> Result<u64> {
    let mut runs = 0;
    let mut skip = HashSet::new();
    loop {
        match run_once(inner, &mut skip)? {
            RunOutcome::Idle => return Ok(runs),
            RunOutcome::Collected(_) => runs += 1,
            RunOutcome::Skipped(_) | RunOutcome::SetAside(_) => {}
        }
    }
}

/// Reports a step to the listener, if any.
pub(crate) fn emit(inner: &DbInner, event: GcEvent) {
    if let Some(listener) = &inner.opts.gc_listener {
        listener(event);
    }
}

/// Keeps value GC's I/O under a byte rate.
pub(crate) struct Throttle {
    bytes_per_sec: u64,
    start: Instant,
    spent: u64,
}

impl Throttle {
    /// A throttle at `bytes_per_sec` (0: unlimited).
    pub fn new(bytes_per_sec: u64) -> Throttle {
        Throttle {
            bytes_per_sec,
            start: Instant::now(),
            spent: 0,
        }
    }

    /// Accounts for `bytes` of I/O, sleeping if the run is ahead of its budget.
    pub fn spend(&mut self, bytes: u64) {
        if self.bytes_per_sec == 0 {
            return;
        }
        self.spent += bytes;
        let due = Duration::from_secs_f64(self.spent as f64 / self.bytes_per_sec as f64);
        if let Some(ahead) = due.checked_sub(self.start.elapsed()) {
            std::thread::sleep(ahead);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::manifest::{DropDelta, ValueFileRecord, VersionEdit};

    fn state(files: &[(u64, u64, u64)]) -> VersionState {
        let mut s = VersionState::empty(3);
        let mut e = VersionEdit::default();
        for &(number, separated, dropped) in files {
            e.added_value_files.push(ValueFileRecord {
                number,
                epoch: 0,
                total_bytes: separated + 100,
                separated_bytes: separated,
                separated_count: separated / 10,
            });
            e.value_file_drops.push(DropDelta {
                number,
                epoch: 0,
                count: dropped / 10,
                bytes: dropped,
            });
        }
        s.apply(&e).unwrap();
        s
    }

    #[test]
    fn picks_the_lowest_valid_rate_below_the_threshold() {
        let s = state(&[(1, 1000, 300), (2, 1000, 800), (3, 1000, 600)]);
        let none = HashSet::new();
        assert_eq!(pick(&s, 0.5, &none), Some(2));
        assert_eq!(pick(&s, 0.1, &none), None);
        assert_eq!(pick(&s, 0.5, &HashSet::from([2])), Some(3));
        // Unsealed log files are never candidates.
        let mut s = s;
        s.value_files.entry(9).or_default().dropped_bytes = 10;
        assert_eq!(pick(&s, 1.0, &none), Some(2));
    }
}

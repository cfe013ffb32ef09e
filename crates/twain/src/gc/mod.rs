//! Value GC: reclaiming the space of dead records in value files.
//!
//! Picking is pure ([`pick`]). A run reads the chosen file's records (`records`) and then,
//! by mode, either rewrites the live ones into a sorted SVTable with the next epoch
//! (`rewrite`, NovKV: validity from drop records, no LSM lookups, handles fixed lazily on
//! read) or relocates them to the log head and writes their handles back (`db::relocate`,
//! WiscKey: validity by LSM lookup, judged by `copy_at`). In drop-records mode a value log
//! whose garbage is clustered is punched instead (`punch`, chosen by cost in `punch_plan`):
//! its dead runs are freed in place. A drop-records run and a punch act on files from
//! their `Job` and the file system alone; `db::value_gc` schedules the runs (one at a
//! time) and installs their results, and `db::punch` records punches and holds them for
//! readers of older versions. Nothing here reaches into the database. Damage in the file
//! is judged by `damage`: GC skips dead records it cannot read, and sets aside a file whose
//! damage may hide a live record.

mod copy_at;
mod damage;
mod group;
mod log_scan;
mod punch;
mod punch_plan;
mod records;
mod report;
mod rewrite;

pub(crate) use copy_at::{CopyAt, names_copy};
pub use damage::SetAsideFile;
pub(crate) use damage::{Damage, SetAsideList, Verdict, judge};
pub(crate) use group::{GroupJob, GroupOutput};
pub(crate) use log_scan::skip_to;
pub(crate) use punch::{PUNCH_BLOCK, punch_delta, punch_file, punchable_holes, shared_file};
pub(crate) use punch_plan::{Choice, DeadRun, choose};
pub(crate) use records::{Record, read_records};
pub use report::{FileVerdict, GcReport, StayReason};
pub(crate) use rewrite::{Rewritten, write_svtable};

use crate::Result;
use crate::format::manifest::ValueFileOrigin;
use crate::fs::Fs;
use crate::options::{GcEvent, GcListener};
use crate::seq_set::SeqSet;
use crate::version::VersionState;
use crate::vlog::ValueFile;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The value file to collect: the sealed file with the lowest fraction of its bytes still
/// live (`ValueFileState::live_fraction`), if that fraction is below `threshold`, leaving
/// out the files in `skip` and transient files (placement frees those whole, once
/// compaction has merged or dropped every value: a rewrite would give their values handles
/// that compaction could not merge, see `docs/architecture.md`, "Placement").
pub fn pick(state: &VersionState, threshold: f64, skip: &HashSet<u64>) -> Option<u64> {
    state
        .value_files
        .iter()
        .filter(|(n, f)| {
            f.sealed.is_some_and(|s| s.separated_bytes > 0)
                && !matches!(f.origin, ValueFileOrigin::Transient | ValueFileOrigin::Hash)
                && !skip.contains(n)
        })
        .map(|(&n, f)| (n, f.live_fraction()))
        .filter(|&(_, rate)| rate < threshold)
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(n, _)| n)
}

/// The tail of the value log (vlog mode, WiscKey's circular log): the oldest sealed value
/// file numbered below `horizon` and not in `skip`, leaving out transient files (see
/// [`pick`]). Oldest is lowest numbered: the log appends to ever higher numbers, and GC
/// relocates live records to the head.
pub fn pick_tail(state: &VersionState, skip: &HashSet<u64>, horizon: u64) -> Option<u64> {
    state
        .value_files
        .range(..horizon)
        .find(|(n, f)| {
            f.sealed.is_some_and(|s| s.separated_bytes > 0)
                && !matches!(f.origin, ValueFileOrigin::Transient | ValueFileOrigin::Hash)
                && !skip.contains(n)
        })
        .map(|(&n, _)| n)
}

/// Which file a run collects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Victim {
    /// The one with the lowest live fraction, if below this ([`pick`]).
    Below(f64),
    /// The log's tail below this file number ([`pick_tail`]).
    Tail(u64),
}

/// How a run on one file ended.
#[derive(Debug)]
pub(crate) enum Run {
    /// The file was collected.
    Done,
    /// The file's dead runs were recorded for punching (`punch`).
    Punched,
    /// Not now: the file is gone, or a live snapshot still needs a record.
    NotNow,
    /// Damage that may hide a live record: the file must be set aside.
    Damaged(Damage),
}

/// The inputs of one run on one value file, taken from the database when the run is
/// scheduled (`db::value_gc`): reading the file and writing the output need nothing else.
pub(crate) struct Job {
    /// The file system.
    pub fs: Arc<dyn Fs>,
    /// The database directory.
    pub dir: PathBuf,
    /// The file to collect, at the epoch the run collects.
    pub file: Arc<ValueFile>,
    /// The drop set of that epoch when the job was made.
    pub dropped: SeqSet,
    /// The number of separated records the manifest records for that epoch.
    pub separated_count: u64,
    /// The punched runs of that epoch (sorted): not read.
    pub punched: Vec<(u64, u64)>,
    /// `Options::gc_bytes_per_sec`.
    pub bytes_per_sec: u64,
    /// Set when the database closes: the run stops waiting out its rate.
    pub closing: Arc<Closing>,
    /// `Options::gc_listener`.
    pub listener: Option<GcListener>,
}

/// What a run read of the file it collects, if it may go on.
pub(crate) struct Input {
    /// The intact records (without the dropped ones if they were skipped).
    pub records: Vec<Record>,
    /// Records lost to damage, all dead.
    pub corrupt_dead: u64,
    /// A value log's frames (see [`read_records`]).
    pub spans: Vec<punch_plan::Span>,
}

impl Job {
    /// Reads the file's intact records, without the dropped ones if `skip_dropped`, and
    /// judges any damage met: `Err` with the damage if the file must be set aside. Also
    /// returns the bytes read.
    ///
    /// A dropped sequence that a value log holds twice is not taken for dead: drops name a
    /// record by sequence, and engines before aade362 could write a relocated, live copy
    /// of a version into the log that holds a dropped copy of it. Both copies are the same
    /// version, so the file is read again with those sequences live: the rewrite keeps one
    /// copy (reads find it by key and sequence) and no punch frees either. Should both
    /// have been dead, one copy stays behind as garbage.
    pub fn read(
        &self,
        throttle: &mut Throttle,
        skip_dropped: bool,
    ) -> Result<(std::result::Result<Input, Damage>, u64)> {
        let fs = self.fs.as_ref();
        let read = |dropped: &SeqSet, throttle: &mut Throttle| {
            read_records(
                fs,
                &self.file,
                &self.punched,
                throttle,
                dropped,
                skip_dropped,
            )
        };
        let mut scan = read(&self.dropped, throttle)?;
        let mut dropped = std::borrow::Cow::Borrowed(&self.dropped);
        // Only a run that skips dropped records acts on them (lsm-lookup judges every
        // record by the tree and never punches).
        if skip_dropped && !scan.dropped_twice.is_empty() {
            let first_read = scan.read;
            let dead = self
                .dropped
                .difference(&scan.dropped_twice)
                .copied()
                .collect();
            drop(std::mem::take(&mut scan.records));
            scan = read(&dead, throttle)?;
            scan.read += first_read;
            dropped = std::borrow::Cow::Owned(dead);
        }
        let verdict = judge(&scan, self.separated_count, &dropped);
        let input = match verdict {
            Verdict::SetAside(d) => Err(d),
            Verdict::Collect { corrupt_dead } => Ok(Input {
                records: scan.records,
                corrupt_dead,
                spans: scan.spans,
            }),
        };
        Ok((input, scan.read))
    }

    /// Reports a step to the listener, if any.
    pub fn emit(&self, event: GcEvent) {
        if let Some(listener) = &self.listener {
            listener(event);
        }
    }
}

/// The damage for which value GC would set `file` aside, if any: `file` holds
/// `separated_count` records, those in `dropped` dead, and the punched runs `punched`.
/// For `twain check`.
pub(crate) fn would_set_aside(
    fs: &dyn Fs,
    file: &ValueFile,
    punched: &[(u64, u64)],
    separated_count: u64,
    dropped: Option<SeqSet>,
) -> Result<Option<Damage>> {
    let dropped = dropped.unwrap_or_default();
    let scan = read_records(fs, file, punched, &mut Throttle::new(0), &dropped, true)?;
    Ok(match judge(&scan, separated_count, &dropped) {
        Verdict::SetAside(d) => Some(d),
        Verdict::Collect { .. } => None,
    })
}

/// How much of the machine a background run may take, asked while it works: every
/// [`PACE_BYTES`] of its I/O a paced run calls [`Pace::check`], which rests as long as the
/// background's duty leaves (`db::pacing::RunPace` answers from the space target and what
/// the foreground does now). A run takes its share as it goes, so a foreground that turns
/// from writing to reading gets the machine back within one step, not one run later.
pub(crate) trait Pace {
    /// Called as the run works: may rest.
    fn check(&self);

    /// The most bytes one read of the run may ask the disk for now: [`BULK_READ`], or
    /// [`SHARED_READ`] while users read, so that a user's read that misses the page cache
    /// waits behind at most one short read of GC's rather than a long one (the device
    /// serves a request whole; on this project's machine a 4 MiB request held a get's
    /// 4 KiB read for 3–7 ms). Asked with [`Pace::check`].
    fn read_len(&self) -> u64 {
        BULK_READ
    }
}

/// A paced run calls [`Pace::check`] after this many bytes of I/O.
pub(crate) const PACE_BYTES: u64 = 1 << 20;

/// Bytes per read of a value file while no user reads: few system calls, the disk's full
/// sequential rate.
pub(crate) const BULK_READ: u64 = 4 << 20;

/// Bytes per read of a value file while users read (see [`Pace::read_len`]).
pub(crate) const SHARED_READ: u64 = 256 << 10;

/// Set once, when the database closes: a run that is ahead of its byte rate waits on it
/// rather than sleeping, so that closing ends the wait and the rest of the run goes at the
/// disk's pace. Otherwise a close would wait out the rate for the rest of the file: over
/// two minutes for a 128 MiB value file at `gc_bytes_per_sec` = 1 MiB.
#[derive(Debug, Default)]
pub(crate) struct Closing {
    closed: Mutex<bool>,
    cv: Condvar,
}

impl Closing {
    /// Marks the database closing and wakes every run waiting on its rate.
    pub fn close(&self) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.cv.notify_all();
    }

    /// Sleeps `d`, or until the database closes if that comes first.
    pub fn sleep(&self, d: Duration) {
        let closed = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        drop(
            self.cv
                .wait_timeout_while(closed, d, |closed| !*closed)
                .unwrap_or_else(PoisonError::into_inner),
        );
    }
}

/// Keeps value GC's I/O under a byte rate, and a run's share of the machine to its
/// [`Pace`], if any.
pub(crate) struct Throttle<'a> {
    bytes_per_sec: u64,
    /// What a wait for the rate waits on, if not a plain sleep.
    closing: Option<&'a Closing>,
    start: Instant,
    spent: u64,
    pace: Option<&'a dyn Pace>,
    unpaced: u64,
    /// What the pace said of read lengths when last asked.
    read_len: u64,
}

impl<'a> Throttle<'a> {
    /// A throttle at `bytes_per_sec` (0: unlimited), unpaced.
    pub fn new(bytes_per_sec: u64) -> Throttle<'a> {
        Throttle {
            bytes_per_sec,
            closing: None,
            start: Instant::now(),
            spent: 0,
            pace: None,
            unpaced: 0,
            read_len: BULK_READ,
        }
    }

    /// The same throttle, asking `pace` as the run works.
    pub fn paced(self, pace: Option<&'a dyn Pace>) -> Throttle<'a> {
        let read_len = pace.map_or(BULK_READ, |p| p.read_len());
        Throttle {
            pace,
            read_len,
            ..self
        }
    }

    /// The same throttle, its waits for the rate ended by `closing`.
    pub fn until_closed(self, closing: &'a Closing) -> Throttle<'a> {
        Throttle {
            closing: Some(closing),
            ..self
        }
    }

    /// The most bytes the run's next read of a value file should ask for: what the pace
    /// said when last asked ([`Pace::read_len`]), [`BULK_READ`] for an unpaced run.
    pub fn read_len(&self) -> u64 {
        self.read_len
    }

    /// Accounts for `bytes` of I/O, sleeping if the run is ahead of its budget, and asks
    /// the pace every [`PACE_BYTES`].
    pub fn spend(&mut self, bytes: u64) {
        if let Some(pace) = self.pace {
            self.unpaced += bytes;
            if self.unpaced >= PACE_BYTES {
                self.unpaced = 0;
                pace.check();
                self.read_len = pace.read_len();
            }
        }
        if self.bytes_per_sec == 0 {
            return;
        }
        self.spent += bytes;
        let due = Duration::from_secs_f64(self.spent as f64 / self.bytes_per_sec as f64);
        if let Some(ahead) = due.checked_sub(self.start.elapsed()) {
            match self.closing {
                Some(closing) => closing.sleep(ahead),
                None => std::thread::sleep(ahead),
            }
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
    fn the_throttle_holds_gc_io_to_its_rate_and_zero_is_unlimited() {
        // 256 KiB at 1 MiB/s takes at least a quarter of a second, however fast the caller:
        // `gc_bytes_per_sec` stays a ceiling whatever duty the pacing gives GC.
        let start = Instant::now();
        let mut t = Throttle::new(1 << 20);
        for _ in 0..4 {
            t.spend(64 << 10);
        }
        assert!(start.elapsed() >= Duration::from_millis(250));
        // Unlimited: a terabyte accounted for costs no sleep.
        let start = Instant::now();
        Throttle::new(0).spend(1 << 40);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    /// A throttle ahead of its rate waits on its `Closing`: closing ends the wait, and
    /// every later one, at once.
    #[test]
    fn closing_ends_the_waits_for_the_rate() {
        let closing = Arc::new(Closing::default());
        let waiting = Arc::clone(&closing);
        let run = std::thread::spawn(move || {
            let start = Instant::now();
            let mut t = Throttle::new(1 << 20).until_closed(&waiting);
            // 64 MiB at 1 MiB/s: over a minute of waits unless closing ends them.
            for _ in 0..64 {
                t.spend(1 << 20);
            }
            start.elapsed()
        });
        std::thread::sleep(Duration::from_millis(100));
        closing.close();
        let took = run.join().unwrap();
        assert!(took < Duration::from_secs(30), "waited {took:?}");
        // Closed before it starts: no wait at all.
        let start = Instant::now();
        Throttle::new(1 << 20).until_closed(&closing).spend(1 << 30);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    /// A paced throttle asks its pace once per `PACE_BYTES` of I/O, however the bytes come;
    /// an unpaced one never asks.
    #[test]
    fn a_paced_throttle_asks_once_per_pace_bytes() {
        struct Count(std::cell::Cell<u32>);
        impl Pace for Count {
            fn check(&self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let count = Count(std::cell::Cell::new(0));
        let mut t = Throttle::new(0).paced(Some(&count));
        for _ in 0..12 {
            t.spend(PACE_BYTES / 4);
        }
        assert_eq!(count.0.get(), 3);
        t.spend(5 * PACE_BYTES);
        assert_eq!(count.0.get(), 4, "one large spend asks once");
        let mut unpaced = Throttle::new(0);
        unpaced.spend(10 * PACE_BYTES);
        assert_eq!(count.0.get(), 4);
    }

    /// A paced throttle's read length is what its pace said when the run started and,
    /// after that, when it last asked (every `PACE_BYTES`); an unpaced one reads in bulk.
    #[test]
    fn a_paced_throttle_reads_as_long_as_its_pace_says() {
        struct Shifting(std::cell::Cell<u64>);
        impl Pace for Shifting {
            fn check(&self) {}
            fn read_len(&self) -> u64 {
                self.0.get()
            }
        }
        let pace = Shifting(std::cell::Cell::new(SHARED_READ));
        let mut t = Throttle::new(0).paced(Some(&pace));
        assert_eq!(t.read_len(), SHARED_READ, "asked when the run starts");
        pace.0.set(BULK_READ);
        t.spend(PACE_BYTES / 2);
        assert_eq!(t.read_len(), SHARED_READ, "not asked between two paces");
        t.spend(PACE_BYTES / 2);
        assert_eq!(t.read_len(), BULK_READ, "asked with the pace");
        assert_eq!(Throttle::new(0).read_len(), BULK_READ);
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

    #[test]
    fn the_tail_is_the_oldest_sealed_file_whatever_its_garbage() {
        let mut s = state(&[(3, 1000, 900), (5, 1000, 0), (7, 1000, 10)]);
        s.value_files.entry(9).or_default();
        let none = HashSet::new();
        assert_eq!(pick_tail(&s, &none, u64::MAX), Some(3));
        assert_eq!(pick_tail(&s, &HashSet::from([3]), u64::MAX), Some(5));
        assert_eq!(pick_tail(&s, &HashSet::from([3, 5]), 7), None);
        // Unsealed files are never the tail.
        assert_eq!(pick_tail(&s, &HashSet::from([3, 5, 7]), u64::MAX), None);
        s.value_files.get_mut(&3).unwrap().origin = ValueFileOrigin::Transient;
        assert_eq!(pick_tail(&s, &none, u64::MAX), Some(5));
    }

    #[test]
    fn a_log_of_mostly_inline_entries_is_picked_with_every_separated_entry_live() {
        // 1,000 separated bytes, none dropped, in a log of 10,100 bytes: the rest is
        // inline entries, in tables once the log is sealed.
        let mut s = state(&[(1, 1000, 0), (2, 1000, 100)]);
        let sealed = |s: &mut VersionState, n| s.value_files.get_mut(&n).unwrap().sealed.unwrap();
        let mut one = sealed(&mut s, 1);
        one.total_bytes = 10_100;
        s.value_files.get_mut(&1).unwrap().sealed = Some(one);
        assert!((s.value_files[&1].valid_rate() - 1.0).abs() < 1e-9);
        let none = HashSet::new();
        assert_eq!(pick(&s, 0.5, &none), Some(1));
        // The same bytes in an SVTable are its index: nothing a rewrite would free.
        one.epoch = 1;
        s.value_files.get_mut(&1).unwrap().sealed = Some(one);
        assert_eq!(s.value_files[&1].live_fraction(), 1.0);
        assert_eq!(pick(&s, 1.0, &none), Some(2));
    }
}

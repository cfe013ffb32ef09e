//! Punches of value GC (`gc::punch`) recorded, held for readers, and done.
//!
//! Order, for crash safety: the manifest edit that records the runs (tag 12) is synced
//! first, the holes are punched after. A crash between them leaves runs recorded but still
//! allocated: every sequential reader skips them alike, and the first GC run after the next
//! open punches every recorded run again. The other order could leave a punched range no
//! reader knows of, which reads as zeros: damage.
//!
//! No reader may meet a hole: every record in a run is in the file's drop set, so no
//! version since the edit that dropped it references it, but a reader of an older version
//! (an iterator, a read in flight) still might. A version whose punched runs differ from
//! its predecessor's gets a new [`PunchGuard`]: a run's holes are punched only once no one
//! but GC holds the guard of the versions before its edit, in edit order (an earlier
//! punch's older versions are gone by then too). Until then the punch waits in
//! [`PunchState`]; every GC run tries the waiting ones, and `Db::gc` waits for them.
//!
//! A file with more than one name ([`Fs::link_count`](crate::fs::Fs::link_count)) is
//! shared with a checkpoint: it is never punched, since its other database may still
//! reference what this one's drops call dead; GC rewrites it instead.
//!
//! Where the file system cannot punch (`Unsupported`, `EOPNOTSUPP`), the database
//! remembers it (no retry storm, [`Stats::gc_punch_unsupported`](crate::Stats)), never
//! chooses punching again, and rewrites every file whose runs were recorded but not
//! punched. Any other failure is an I/O error like a failed write: the database becomes
//! read-only.

use super::{DbInner, lock};
use crate::Result;
use crate::format::manifest::VersionEdit;
use crate::gc::{DeadRun, Job, Run, punch_file, shared_file};
use crate::stats::Counters;
use crate::version::PunchGuard;
use crate::vlog::ValueFile;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long `Db::gc` waits for readers of older versions to let go of the punches it
/// recorded.
const COMPLETE_WAIT: Duration = Duration::from_secs(1);

/// Punches recorded in the manifest, waiting for readers of older versions; and whether
/// the file system can punch at all.
#[derive(Debug, Default)]
pub(crate) struct PunchState {
    pending: Mutex<VecDeque<Pending>>,
    /// Whether the runs the manifest recorded before this open were queued again.
    resumed: AtomicBool,
    unsupported: AtomicBool,
    /// Files whose recorded runs could not be punched: GC rewrites them next.
    rewrite_next: Mutex<BTreeSet<u64>>,
}

/// The holes of one punch run, not yet punched.
#[derive(Debug)]
struct Pending {
    /// The guard of the versions before the run's edit.
    guard: Arc<PunchGuard>,
    /// The file: holding it keeps it on disk even if a compaction leaves it wholly dead
    /// and deletes it meanwhile.
    file: Arc<ValueFile>,
    /// Whole-block ranges `[from, to)` to punch.
    holes: Vec<(u64, u64)>,
    /// Whether the holes count as newly punched (not when punched again after an open).
    count: bool,
}

impl PunchState {
    /// Whether GC may choose punching (false once the file system refused).
    pub fn supported(&self) -> bool {
        !self.unsupported.load(Ordering::Relaxed)
    }

    /// A file whose recorded runs are still allocated because punching failed, if any.
    pub fn take_rewrite(&self) -> Option<u64> {
        lock(&self.rewrite_next).pop_first()
    }

    /// Whether a file waits for its rewrite in place of a punch.
    pub fn rewrite_pending(&self) -> bool {
        !lock(&self.rewrite_next).is_empty()
    }

    /// Whether punches wait for readers.
    pub fn waiting(&self) -> bool {
        !lock(&self.pending).is_empty()
    }
}

/// Records the punching of `runs` of the job's file in the manifest; the holes are punched
/// now or, if readers of older versions remain, by a later run ([`punch_ready`]).
pub(crate) fn punch(inner: &DbInner, job: &Job, runs: &[DeadRun]) -> Result<Run> {
    let (number, epoch) = (job.file.number(), job.file.epoch());
    let mut versions = lock(&inner.versions);
    let current = Arc::clone(versions.current());
    if current
        .value_files
        .get(&number)
        .is_none_or(|f| f.epoch() != epoch)
    {
        // Deleted meanwhile (a compaction left it wholly dead).
        return Ok(Run::NotNow);
    }
    let holes = crate::gc::punchable_holes(runs.iter().map(|r| (r.start, r.end)));
    let delta = crate::gc::punch_delta(number, epoch, runs, &holes);
    let guard = Arc::clone(&current.punch_guard);
    drop(current);
    let edit = VersionEdit {
        value_file_punches: vec![delta],
        ..VersionEdit::default()
    };
    // IMPORTANT: the runs are durable in the manifest before any hole is punched.
    let version = versions.log_and_apply(edit)?;
    super::value_gc::publish_version(inner, version);
    drop(versions);
    lock(&inner.gc_punch.pending).push_back(Pending {
        guard,
        file: Arc::clone(&job.file),
        holes,
        count: true,
    });
    Counters::add(&inner.counters.gc_punch_runs, 1);
    Ok(Run::Punched)
}

/// Punches the waiting holes whose older versions are gone, in the order they were
/// recorded. The first call after an open also punches again every run the manifest
/// recorded: a crash may have come between a run's edit and its punch (or its sync), and
/// punching a hole twice changes nothing. REQUIRES: the caller holds `gc_lock`.
pub(crate) fn punch_ready(inner: &DbInner) -> Result<()> {
    if !inner.gc_punch.resumed.swap(true, Ordering::Relaxed) {
        resume(inner);
    }
    loop {
        let next = {
            let mut pending = lock(&inner.gc_punch.pending);
            match pending.front() {
                // Only this list holds the guard: no version before the edit is left,
                // and none can be made again.
                Some(p) if Arc::strong_count(&p.guard) == 1 => pending.pop_front(),
                _ => None,
            }
        };
        let Some(p) = next else {
            return Ok(());
        };
        punch_holes(inner, &p)?;
    }
}

/// Queues the runs of the current version to be punched again (no reader of an older
/// version exists yet: it is the first GC work of this open).
fn resume(inner: &DbInner) {
    let version = Arc::clone(&inner.super_version().version);
    let mut pending = lock(&inner.gc_punch.pending);
    for (&number, runs) in &version.state.punched {
        let Some(file) = version.value_files.get(&number) else {
            continue;
        };
        let holes = crate::gc::punchable_holes(runs.iter().copied());
        pending.push_back(Pending {
            guard: Arc::default(),
            file: Arc::clone(file),
            holes,
            count: false,
        });
    }
}

/// Punches the holes of `p`, unless its file left the epoch meanwhile.
fn punch_holes(inner: &DbInner, p: &Pending) -> Result<()> {
    let (number, path) = (p.file.number(), p.file.path());
    let still_there = inner
        .super_version()
        .version
        .value_files
        .get(&number)
        .is_some_and(|f| f.epoch() == p.file.epoch());
    if !still_there {
        return Ok(());
    }
    let state = &inner.gc_punch;
    // A file linked into a checkpoint must not change under it: the checkpoint's tables
    // may still reference records in runs recorded after it was made. Runs punched again
    // after an open are no exception: in a checkpoint, they may be runs the source has
    // recorded but not punched yet, waiting for its readers of older versions.
    if !state.supported() || shared_file(inner.fs.as_ref(), path)? {
        lock(&state.rewrite_next).insert(number);
        return Ok(());
    }
    let done = punch_file(inner.fs.as_ref(), path, &p.holes);
    if p.count {
        Counters::add(&inner.counters.gc_punched_bytes, done.bytes);
    }
    if done.unsupported {
        state.unsupported.store(true, Ordering::Relaxed);
        Counters::add(&inner.counters.gc_punch_unsupported, 1);
        lock(&state.rewrite_next).insert(number);
    }
    match done.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Waits (boundedly) until every recorded punch is done: `Db::gc` reports the space they
/// free. Readers of older versions delay them; after the bound they stay waiting for the
/// next run.
pub(crate) fn wait_for_punches(inner: &DbInner) -> Result<()> {
    let start = Instant::now();
    loop {
        {
            let _one_at_a_time = lock(&inner.gc_lock);
            punch_ready(inner)?;
        }
        if !inner.gc_punch.waiting() || start.elapsed() > COMPLETE_WAIT {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

//! The space target (`Options::space_amp_target`): how much of the machine value GC,
//! garbage compactions and forced log seals get, from how far the space amplification
//! is from the target.
//!
//! The figure is allocated disk bytes over the live bytes of the newest live-data pass
//! (`space::LiveCache`). Its *pressure* is `(amp - 1) / (target - 1)`: 0 with no
//! garbage, 1 at the target. [`plan`] (pure) turns pressure into the background's
//! settings:
//!
//! | pressure | GC threshold | GC duty | garbage compactions | seal the active log |
//! |---|---|---|---|---|
//! | ≤ ½ | `gc_threshold` | ¼ | no | no |
//! | ½ … 1 | rises to 0.9 | rises to 1 | from ¾ | no |
//! | ≥ 1 | 0.9 | 1 | yes | when a tenth of it is dead |
//!
//! The *duty* is the share of wall time the GC thread spends collecting: for work that
//! took `d` it rests `d × (1/duty − 1)`, so below the target the foreground keeps most of
//! the machine, and under a write burst that pushes the figure up, GC gets more of it.
//! `gc_bytes_per_sec` stays a ceiling on top. A run rests as it works ([`RunPace`], every
//! [`PACE_STEP`] of work, at the duty of the plan for now), so the end of a burst hands
//! the machine back to reads within a step, not a run or two later. A garbage or expiry
//! compaction rests the same way while the foreground only reads ([`CompactionPace`]). Once the foreground has written nothing for a
//! second, the background works as a complete GC would (threshold 0.9, garbage
//! compactions, seal) while the figure is above the *idle target*, `1 + (target − 1) / 3`
//! (1.1 for the default 1.3); then it stops: every step of that work removes garbage, so
//! it ends. It does so at full duty when the foreground is quiet (no read either), and at
//! the resting duty while users still read ([`Foreground::Reading`]): without writes the
//! figure cannot grow, so there is no hurry, and a copy of a value file competes for the
//! disk and the page cache with every read (on a database larger than memory, value GC at
//! full duty made 100-pair scans three times slower). Garbage and refresh compactions
//! take a reading foreground for a load as well (`background::garbage_pick`,
//! `background::refresh_pick`): spread over the reads, GC runs make handles stale one run
//! at a time, and refreshes back to back after each would rewrite tables again and again.

use super::{DbInner, lock};
use crate::Result;
use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// The GC threshold at full pressure: what a complete GC uses.
const FULL_THRESHOLD: f64 = super::value_gc::COMPLETE_GC_THRESHOLD;

/// The GC duty below half the target's pressure.
const RESTING_DUTY: f64 = 0.25;

/// What the foreground did in the last second (`background::BgState::foreground`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Foreground {
    /// No user operation.
    Quiet,
    /// Reads (gets, multi-gets, iterator steps), no write.
    Reading,
    /// Writes.
    Writing,
}

/// What the background may do now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    /// Value files whose live fraction is below this are collected.
    pub gc_threshold: f64,
    /// The share of wall time the GC thread may spend collecting (0, 1].
    pub gc_duty: f64,
    /// Whether garbage compactions may run.
    pub garbage_compactions: bool,
    /// Whether the active value file may be sealed for GC (when a tenth of it is dead).
    pub seal_active: bool,
    /// Whether the figure is over what the background works down to (the target, or the
    /// idle target with the foreground quiet): vlog mode collects the log's tail while so.
    pub over_budget: bool,
}

/// The settings for space amplification `amp` (`None`: not known yet) under `target`,
/// with the foreground doing `fg`.
pub(crate) fn plan(amp: Option<f64>, target: f64, fg: Foreground, gc_threshold: f64) -> Plan {
    let resting = Plan {
        gc_threshold,
        gc_duty: RESTING_DUTY,
        garbage_compactions: false,
        seal_active: false,
        over_budget: false,
    };
    let Some(amp) = amp else {
        return resting;
    };
    if fg != Foreground::Writing {
        if amp <= idle_target(target) {
            return resting;
        }
        return Plan {
            gc_threshold: gc_threshold.max(FULL_THRESHOLD),
            gc_duty: if fg == Foreground::Quiet {
                1.0
            } else {
                RESTING_DUTY
            },
            garbage_compactions: true,
            seal_active: true,
            over_budget: true,
        };
    }
    let pressure = (amp - 1.0) / (target - 1.0);
    if pressure <= 0.5 {
        return resting;
    }
    let ramp = ((pressure - 0.5) / 0.5).min(1.0);
    Plan {
        gc_threshold: gc_threshold.max(gc_threshold + (FULL_THRESHOLD - gc_threshold) * ramp),
        gc_duty: RESTING_DUTY + (1.0 - RESTING_DUTY) * ramp,
        garbage_compactions: pressure >= 0.75,
        seal_active: pressure >= 1.0,
        over_budget: pressure >= 1.0,
    }
}

/// What the newest live-data pass found hidden behind shadowed versions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ShadowedGarbage {
    /// Separated value bytes that no drop record marks dead yet: a compaction that drops
    /// their versions makes them collectable by value GC.
    pub value_bytes: u64,
    /// Bytes of shadowed versions and tombstones in the key store (memtables included),
    /// inline values with them: a compaction that drops them frees them.
    pub table_bytes: u64,
}

/// Whether a garbage compaction under a write load pays for itself: the garbage it may make
/// known, the value bytes hidden behind shadowed versions anywhere and at most its upper
/// inputs' bytes of shadowed entries in the key store (it drops only what those shadow),
/// is at least the table bytes it reads (and about as many it writes). With separated
/// values a handle of a few dozen bytes stands for a value of a kilobyte, so garbage
/// compactions pay many times over; with small values inline, merging a few fresh L0
/// tables into a whole level of the same bytes would rewrite the level to free a fraction
/// of it, and the level's own size compaction drops those versions anyway. Once the
/// foreground is quiet every garbage compaction runs (they end: each removes an overlap).
pub(crate) fn garbage_compaction_pays(reads: u64, upper: u64, garbage: ShadowedGarbage) -> bool {
    garbage
        .value_bytes
        .saturating_add(garbage.table_bytes.min(upper))
        >= reads
}

/// The figure the background works down to once the foreground is quiet.
pub(crate) fn idle_target(target: f64) -> f64 {
    1.0 + (target - 1.0) / 3.0
}

/// A paced run rests after at least this much work (`RunPace`): short enough that a
/// foreground turning to reads gets the machine back at once, long enough that asking
/// (a directory listing for the figure) costs nothing.
pub(crate) const PACE_STEP: Duration = Duration::from_millis(50);

/// The pacing of the GC thread's runs (`gc::Pace`): after every [`PACE_STEP`] of work a
/// run rests as long as the duty of the plan for *now* leaves (`rest_after`), so a run
/// that began under a write burst at full duty drops to the resting duty within a step of
/// the foreground turning to reads; [`RunPace::settle`] charges the last step when a run
/// ends. Manual GC (`Db::gc`) and vlog mode's runs (writers wait for them) are not paced.
pub(crate) struct RunPace<'a> {
    inner: &'a DbInner,
    /// When the work not yet rested for began.
    since: Cell<Instant>,
}

impl<'a> RunPace<'a> {
    /// The pacing of runs starting now.
    pub fn new(inner: &'a DbInner) -> RunPace<'a> {
        RunPace {
            inner,
            since: Cell::new(Instant::now()),
        }
    }

    /// Rests for the work since the last rest, however short; not at all while a user
    /// waits for a complete GC ([`ManualGc`]): that user is the foreground then.
    pub fn settle(&self) {
        if self.inner.manual_gcs.load(Relaxed) == 0 {
            let worked = self.since.get().elapsed();
            let duty = plan_now(self.inner).0.gc_duty;
            super::background::rest(self.inner, rest_after(worked, duty));
        }
        self.since.set(Instant::now());
    }
}

/// The pacing of an automatic garbage or expiry compaction (`PartEnv::pace`):
/// while the foreground only reads, after every [`PACE_STEP`] of work it rests as value GC
/// does at the resting duty. Under writes it runs flat out (its merge drains L0 too), as it
/// does with the foreground quiet and while a manual compaction or a user's complete GC
/// waits for it. Parts of one task share it: each rests for the work since the last rest.
pub(crate) struct CompactionPace<'a> {
    inner: &'a DbInner,
    /// When the work not yet rested for began.
    since: std::sync::Mutex<Instant>,
}

impl<'a> CompactionPace<'a> {
    /// The pacing of a compaction starting now.
    pub fn new(inner: &'a DbInner) -> CompactionPace<'a> {
        CompactionPace {
            inner,
            since: std::sync::Mutex::new(Instant::now()),
        }
    }

    /// Rests if a step of work is done and the foreground only reads.
    pub fn check(&self) {
        let worked = lock(&self.since).elapsed();
        if worked < PACE_STEP {
            return;
        }
        let reading = {
            let mut st = lock(&self.inner.bg.state);
            !st.manual
                && self.inner.manual_gcs.load(Relaxed) == 0
                && foreground_in(self.inner, &mut st) == Foreground::Reading
        };
        if reading {
            super::background::rest(self.inner, rest_after(worked, RESTING_DUTY));
        }
        *lock(&self.since) = Instant::now();
    }
}

/// A complete GC in progress (`Db::gc`), while held: paced background runs stop resting,
/// so the user's GC never waits on the rests of a run that holds the GC lock.
pub(crate) struct ManualGc<'a>(&'a DbInner);

impl<'a> ManualGc<'a> {
    pub fn start(inner: &'a DbInner) -> ManualGc<'a> {
        inner.manual_gcs.fetch_add(1, Relaxed);
        ManualGc(inner)
    }
}

impl Drop for ManualGc<'_> {
    fn drop(&mut self) {
        self.0.manual_gcs.fetch_sub(1, Relaxed);
    }
}

impl crate::gc::Pace for RunPace<'_> {
    fn check(&self) {
        if self.since.get().elapsed() >= PACE_STEP {
            self.settle();
        }
    }

    /// Short reads while users read (gets and scans whose values miss the page cache
    /// queue behind GC's reads at the disk), whether they also write; long ones otherwise
    /// and while a user waits for a complete GC.
    fn read_len(&self) -> u64 {
        if self.inner.manual_gcs.load(Relaxed) > 0 {
            return crate::gc::BULK_READ;
        }
        let reading = {
            let mut st = lock(&self.inner.bg.state);
            foreground_in(self.inner, &mut st);
            st.read_lately()
        };
        if reading {
            crate::gc::SHARED_READ
        } else {
            crate::gc::BULK_READ
        }
    }
}

/// How long the GC thread rests after a run that took `took` at duty `duty`.
pub(crate) fn rest_after(took: Duration, duty: f64) -> Duration {
    if duty >= 1.0 {
        return Duration::ZERO;
    }
    took.mul_f64(1.0 / duty.max(RESTING_DUTY) - 1.0)
}

/// The space amplification now: allocated bytes of the directory over the live bytes of
/// the newest successful live-data pass; `None` without one, or with nothing live.
///
/// In vlog mode, whose GC moves live records (an early run copies them for nothing), the
/// bytes users wrote since the pass count as live too: a pass that lags a load never makes
/// it collect, and under updates it may run late by what one pass interval writes
/// (`space` paces passes at a tenth of a core).
pub(crate) fn current_amp(inner: &DbInner) -> Result<Option<f64>> {
    Ok(space_now(inner)?.map(|(disk, live)| disk as f64 / live as f64))
}

/// The disk bytes (allocated) and the live bytes `current_amp` divides; `None` while no
/// live-data pass has run or nothing is live.
pub(crate) fn space_now(inner: &DbInner) -> Result<Option<(u64, u64)>> {
    let Some(pass) = inner.live_cache.last() else {
        return Ok(None);
    };
    let Ok(live) = pass.outcome else {
        return Ok(None);
    };
    let mut live_bytes = live.bytes;
    if !inner.opts.gc_mode.records_drops() {
        let now = inner.counters.user_bytes.load(Relaxed);
        live_bytes += now.saturating_sub(pass.user_bytes);
    }
    if live_bytes == 0 {
        return Ok(None);
    }
    let disk = super::space::disk_usage(inner)?.total();
    Ok(Some((disk, live_bytes)))
}

/// The plan for now, and whether the foreground has written nothing for a second (`quiet`:
/// it may still read). An unreadable directory listing leaves the figure unknown (the
/// resting plan).
pub(crate) fn plan_now(inner: &DbInner) -> (Plan, bool) {
    let amp = current_amp(inner).unwrap_or(None);
    let (fg, quiet) = {
        let mut st = lock(&inner.bg.state);
        (foreground_in(inner, &mut st), st.writes_idle())
    };
    let plan = plan(
        amp,
        inner.opts.space_amp_target,
        fg,
        inner.opts.gc_threshold,
    );
    (plan, quiet)
}

/// What the foreground does now (`BgState::foreground`): writes (`Counters::user_ops`),
/// reads (`reads_counted`), or nothing.
#[cfg(test)]
pub(crate) fn foreground_now(inner: &DbInner) -> Foreground {
    foreground_in(inner, &mut lock(&inner.bg.state))
}

/// `foreground_now` with the background state already locked.
pub(crate) fn foreground_in(inner: &DbInner, st: &mut super::background::BgState) -> Foreground {
    let ops = inner.counters.user_ops.load(Relaxed);
    st.foreground(ops, reads_counted(inner))
}

/// The user reads counted so far: gets (`Counters::gets`, multi-gets' keys included) and
/// iterator reports (`DbInner::iterator_reads`).
pub(crate) fn reads_counted(inner: &DbInner) -> u64 {
    use std::sync::atomic::Ordering::Relaxed;
    inner
        .counters
        .gets
        .load(Relaxed)
        .wrapping_add(inner.iterator_reads.load(Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_half_the_pressure_the_background_rests() {
        for amp in [None, Some(1.0), Some(1.1), Some(1.15)] {
            let p = plan(amp, 1.3, Foreground::Writing, 0.5);
            assert_eq!(p.gc_threshold, 0.5);
            assert_eq!(p.gc_duty, RESTING_DUTY);
            assert!(!p.garbage_compactions && !p.seal_active);
        }
    }

    #[test]
    fn nearing_the_target_gc_gets_more_of_the_machine() {
        const W: Foreground = Foreground::Writing;
        let a = plan(Some(1.2), 1.3, W, 0.5);
        let b = plan(Some(1.25), 1.3, W, 0.5);
        let c = plan(Some(1.3), 1.3, W, 0.5);
        assert!(a.gc_threshold < b.gc_threshold && b.gc_threshold < c.gc_threshold);
        assert!(a.gc_duty < b.gc_duty && b.gc_duty < c.gc_duty);
        assert!(!a.garbage_compactions && b.garbage_compactions);
        assert!(!b.seal_active && c.seal_active);
        assert!(!b.over_budget && c.over_budget);
        assert_eq!(c.gc_threshold, FULL_THRESHOLD);
        assert_eq!(c.gc_duty, 1.0);
        assert_eq!(plan(Some(4.0), 1.3, W, 0.5), c);
    }

    #[test]
    fn a_user_threshold_above_the_ramp_is_kept() {
        let p = plan(Some(1.25), 1.3, Foreground::Writing, 0.95);
        assert_eq!(p.gc_threshold, 0.95);
    }

    #[test]
    fn a_quiet_foreground_lets_the_background_finish_down_to_the_idle_target() {
        assert!((idle_target(1.3) - 1.1).abs() < 1e-9);
        let busy = plan(Some(1.15), 1.3, Foreground::Quiet, 0.5);
        assert!(busy.garbage_compactions && busy.seal_active && busy.gc_duty == 1.0);
        assert!(busy.over_budget);
        assert_eq!(busy.gc_threshold, FULL_THRESHOLD);
        let done = plan(Some(1.09), 1.3, Foreground::Quiet, 0.5);
        assert!(!done.garbage_compactions && !done.seal_active && !done.over_budget);
        assert_eq!(done.gc_duty, RESTING_DUTY);
    }

    #[test]
    fn while_users_only_read_the_background_finishes_at_the_resting_duty() {
        for amp in [1.15, 1.3, 2.5] {
            let quiet = plan(Some(amp), 1.3, Foreground::Quiet, 0.5);
            let reading = plan(Some(amp), 1.3, Foreground::Reading, 0.5);
            assert_eq!(reading.gc_duty, RESTING_DUTY, "at {amp}");
            assert_eq!(quiet.gc_duty, 1.0);
            // Everything else is the quiet plan's: the same work, spread out.
            assert_eq!(
                Plan {
                    gc_duty: 1.0,
                    ..reading
                },
                quiet
            );
        }
        let done = plan(Some(1.09), 1.3, Foreground::Reading, 0.5);
        assert!(!done.garbage_compactions && !done.seal_active && !done.over_budget);
        // Writes bring the pressure's duty back.
        assert_eq!(plan(Some(2.5), 1.3, Foreground::Writing, 0.5).gc_duty, 1.0);
    }

    #[test]
    fn a_garbage_compaction_under_load_must_free_what_it_reads() {
        let inline = |table_bytes| ShadowedGarbage {
            value_bytes: 0,
            table_bytes,
        };
        // Small values inline: 30 MB of L0 over a 250 MB level frees at most the 30 MB.
        assert!(!garbage_compaction_pays(
            280 << 20,
            30 << 20,
            inline(90 << 20)
        ));
        // L0 tables shadowing each other with nothing below: it pays when what they
        // shadow is their size.
        assert!(garbage_compaction_pays(
            60 << 20,
            60 << 20,
            inline(70 << 20)
        ));
        assert!(!garbage_compaction_pays(
            60 << 20,
            60 << 20,
            inline(20 << 20)
        ));
        // Separated values: 600 MB of values behind 80 MB of tables.
        let separated = ShadowedGarbage {
            value_bytes: 600 << 20,
            table_bytes: 10 << 20,
        };
        assert!(garbage_compaction_pays(80 << 20, 20 << 20, separated));
        assert!(!garbage_compaction_pays(u64::MAX, 0, separated));
    }

    /// Gets and iterator steps make a foreground that writes nothing a reading one; a
    /// second without either makes it quiet, and a write makes it a writing one again.
    #[test]
    fn gets_and_scans_tell_a_reading_foreground_from_a_quiet_one() {
        use crate::Db;
        use crate::fs::MemFs;
        use std::sync::Arc;
        use std::sync::atomic::Ordering::Relaxed;
        use std::time::Instant;
        let opts = crate::Options::default().fs(Arc::new(MemFs::new()));
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        for i in 0..1000u32 {
            db.put(format!("k{i:05}"), b"v").unwrap();
        }
        let inner = &db.inner;
        assert_eq!(foreground_now(inner), Foreground::Writing);
        let long_ago = || Instant::now().checked_sub(super::super::background::IDLE_WAIT * 2);
        let settle = || {
            let mut st = lock(&inner.bg.state);
            st.ops_seen_at = long_ago();
            st.reads_seen_at = long_ago();
        };
        settle();
        assert_eq!(foreground_now(inner), Foreground::Quiet);
        db.get("k00001").unwrap();
        assert_eq!(foreground_now(inner), Foreground::Reading);
        settle();
        assert_eq!(foreground_now(inner), Foreground::Quiet);
        // A scan reports on its first step and on every 256th.
        let before = inner.iterator_reads.load(Relaxed);
        assert_eq!(db.iter().count(), 1000);
        assert_eq!(inner.iterator_reads.load(Relaxed) - before, 4);
        assert_eq!(foreground_now(inner), Foreground::Reading);
        settle();
        let back = db.iter().rev().take(3).count();
        assert_eq!(back, 3);
        assert_eq!(foreground_now(inner), Foreground::Reading);
        db.put("k00001", b"w").unwrap();
        assert_eq!(foreground_now(inner), Foreground::Writing);
        // A quarter second without writes ends a write load: reads get the machine back
        // (the resting duty) at once, though the foreground is not quiet for a second.
        let lull = Instant::now().checked_sub(super::super::background::WRITE_WAIT * 2);
        lock(&inner.bg.state).ops_seen_at = lull;
        assert_eq!(foreground_now(inner), Foreground::Reading);
        assert!(
            !plan_now(inner).1,
            "not quiet before a second without writes"
        );
        settle();
        assert!(plan_now(inner).1);
    }

    #[test]
    fn rest_is_what_the_duty_leaves() {
        let d = Duration::from_millis(100);
        assert_eq!(rest_after(d, 1.0), Duration::ZERO);
        assert_eq!(rest_after(d, 0.25), Duration::from_millis(300));
        assert_eq!(rest_after(d, 0.5), Duration::from_millis(100));
    }

    /// An empty database in memory whose GC thread does nothing (the tests drive the pace).
    fn db_without_gc() -> crate::Db {
        let mut opts = crate::Options::default().fs(std::sync::Arc::new(crate::fs::MemFs::new()));
        opts.gc_enabled = false;
        crate::Db::open(std::path::Path::new("/db"), opts).unwrap()
    }

    /// A paced run rests inside the run as the plan for now says: nothing before a step of
    /// work, the resting duty's share after one (here the figure is unknown: no live-data
    /// pass on an empty database, so the plan is the resting one), and `settle` charges
    /// the work since the last rest. Only lower bounds on time: a sleep is never shorter.
    #[test]
    fn a_paced_run_rests_as_it_works() {
        use crate::gc::Pace;
        let db = db_without_gc();
        let inner = &db.inner;
        assert_eq!(plan_now(inner).0.gc_duty, RESTING_DUTY);
        let pace = RunPace::new(inner);
        let before = pace.since.get();
        pace.check();
        assert_eq!(pace.since.get(), before, "no rest before a step of work");
        let worked = Duration::from_millis(60);
        pace.since.set(Instant::now() - worked);
        let start = Instant::now();
        pace.check();
        assert!(start.elapsed() >= rest_after(worked, RESTING_DUTY));
        assert!(
            pace.since.get() >= start,
            "the next step starts after the rest"
        );
        pace.since.set(Instant::now() - Duration::from_millis(20));
        let start = Instant::now();
        pace.settle();
        assert!(
            start.elapsed() >= Duration::from_millis(60),
            "settle charges a short step"
        );
        // A user's complete GC waits for the GC lock: the run holding it rests no more
        // (here a second of work would cost three seconds of rest).
        let user = ManualGc::start(inner);
        pace.since.set(Instant::now() - Duration::from_secs(1));
        let start = Instant::now();
        pace.settle();
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "no rest while a user waits"
        );
        drop(user);
        assert_eq!(inner.manual_gcs.load(Relaxed), 0);
    }

    /// A GC run reads short while users read, writing or not, and in bulk while they only
    /// write, with the foreground quiet, and while a user waits for a complete GC.
    #[test]
    fn a_gc_run_reads_short_while_users_read() {
        use crate::gc::{BULK_READ, Pace, SHARED_READ};
        let db = db_without_gc();
        let inner = &db.inner;
        let pace = RunPace::new(inner);
        let ago = |d: Duration| Instant::now().checked_sub(d);
        let idle = super::super::background::IDLE_WAIT * 2;
        let len = |ops: Option<Instant>, reads: Option<Instant>| {
            let mut st = lock(&inner.bg.state);
            // What the foreground call saw last: nothing new since.
            st.seen_ops = inner.counters.user_ops.load(Relaxed);
            st.seen_reads = reads_counted(inner);
            st.ops_seen_at = ops;
            st.reads_seen_at = reads;
            drop(st);
            pace.read_len()
        };
        assert_eq!(len(ago(idle), ago(idle)), BULK_READ, "quiet");
        assert_eq!(
            len(Some(Instant::now()), ago(idle)),
            BULK_READ,
            "writes only"
        );
        assert_eq!(len(ago(idle), Some(Instant::now())), SHARED_READ, "reads");
        assert_eq!(
            len(Some(Instant::now()), Some(Instant::now())),
            SHARED_READ,
            "reads among writes"
        );
        let user = ManualGc::start(inner);
        assert_eq!(
            len(ago(idle), Some(Instant::now())),
            BULK_READ,
            "a user waits"
        );
        drop(user);
        // A read counted now is seen by the next call, with nothing set by hand.
        assert_eq!(len(ago(idle), ago(idle)), BULK_READ);
        let _ = db.get(b"k").unwrap();
        assert_eq!(pace.read_len(), SHARED_READ, "a get just now");
    }

    /// A garbage compaction's pace rests only while the foreground reads: not under writes
    /// (its merge drains L0), not with the foreground quiet, not while a manual compaction
    /// waits for it; and never before a step of work. Only lower bounds on time, and upper
    /// ones three times wider than the rest they rule out.
    #[test]
    fn a_compaction_rests_only_while_users_only_read() {
        let db = db_without_gc();
        let inner = &db.inner;
        let pace = CompactionPace::new(inner);
        let worked = Duration::from_secs(1); // three seconds of rest at the resting duty
        let rests = |set: &dyn Fn(&mut super::super::background::BgState)| {
            set(&mut lock(&inner.bg.state));
            *lock(&pace.since) = Instant::now() - worked;
            let start = Instant::now();
            pace.check();
            start.elapsed() >= rest_after(worked, RESTING_DUTY)
        };
        let ago = |d: Duration| Instant::now().checked_sub(d);
        let idle = super::super::background::IDLE_WAIT * 2;
        let lull = super::super::background::WRITE_WAIT * 2;
        // Writing: a write just now.
        assert!(!rests(&|st| st.ops_seen_at = Some(Instant::now())));
        // Quiet: no write and no read for a while.
        assert!(!rests(&|st| {
            st.ops_seen_at = ago(idle);
            st.reads_seen_at = ago(idle);
        }));
        // Reading, but a manual compaction waits.
        assert!(!rests(&|st| {
            st.ops_seen_at = ago(lull);
            st.manual = true;
        }));
        lock(&inner.bg.state).manual = false;
        // Reading: a burst's end a moment ago.
        assert!(rests(&|st| st.ops_seen_at = ago(lull)));
        // Before a step of work, no rest whatever the foreground.
        let start = Instant::now();
        pace.check();
        assert!(start.elapsed() < rest_after(worked, RESTING_DUTY));
    }
}

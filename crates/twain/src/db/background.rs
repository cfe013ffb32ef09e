//! Background threads: one flushes frozen memtables, `compaction_threads` run
//! compactions. They sleep on one condition variable that every state change signals.

use super::{DbInner, compact, flush, lock, pacing, stale, value_gc};
use crate::Result;
use crate::compaction::picker::{self, LevelShape};
use crate::error::IoContext;
use crate::gc::Victim;
use crate::options::GcMode;
use crate::stats::Counters;
use crate::vlog::{LogWriter, SpareLog, ValueFile};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long idle threads sleep before looking for work again.
pub(crate) const IDLE_WAIT: Duration = Duration::from_secs(1);

/// A write in the last this long makes the foreground a writing one
/// (`BgState::foreground`).
pub(crate) const WRITE_WAIT: Duration = Duration::from_millis(250);

/// Scheduling state shared by the background threads and the foreground.
#[derive(Debug, Default)]
pub(crate) struct BgState {
    pub shutting_down: bool,
    /// Tables that a running compaction reads.
    pub busy_tables: HashSet<u64>,
    pub compactions_running: usize,
    /// A manual compaction is running or waiting: automatic picking pauses.
    pub manual: bool,
    /// `Counters::user_ops` when the compaction threads last saw it change, and when.
    pub seen_ops: u64,
    pub ops_seen_at: Option<Instant>,
    /// The reads `pacing::foreground_now` counts, when they were last seen to change, and
    /// when.
    pub seen_reads: u64,
    pub reads_seen_at: Option<Instant>,
    /// The newest value file when the last garbage compaction was picked (or when the
    /// compaction threads first looked): 0 before that.
    pub garbage_log: u64,
    /// Under load, no refresh compaction starts before this (`stale::next_busy_start`).
    pub refresh_not_before: Option<Instant>,
    /// `Counters::svtable_searches` when the last refresh compaction was picked.
    pub refresh_searches: u64,
    /// Tables refresh compactions wrote, each with `Counters::gc_runs` when it was picked:
    /// not picked for refresh again until value GC has run since.
    pub refreshed: HashMap<u64, u64>,
    /// A garbage compaction with the foreground quiet waits for the active memtable's
    /// flush: `garbage_pick` asks the compaction thread to freeze it (`freeze_for_garbage`).
    pub freeze_for_garbage: bool,
}

impl BgState {
    /// Whether no write came for `IDLE_WAIT`, given the operations counted so far
    /// (`Counters::user_ops`).
    fn foreground_quiet(&mut self, ops: u64) -> bool {
        if ops != self.seen_ops || self.ops_seen_at.is_none() {
            self.seen_ops = ops;
            self.ops_seen_at = Some(Instant::now());
        }
        self.ops_seen_at.is_some_and(|t| t.elapsed() >= IDLE_WAIT)
    }

    /// What the foreground does, given the operations (writes) and the reads counted so
    /// far: one that wrote in the last `WRITE_WAIT` is `Writing` whether it read or not;
    /// one that has not written for `IDLE_WAIT` and read nothing in it is `Quiet`; anything
    /// between is `Reading` (a burst's end hands the machine back to reads within a
    /// quarter second, but only a second without writes lets the background act as on an
    /// idle database).
    pub fn foreground(&mut self, ops: u64, reads: u64) -> pacing::Foreground {
        let quiet = self.foreground_quiet(ops);
        if reads != self.seen_reads || self.reads_seen_at.is_none() {
            self.seen_reads = reads;
            self.reads_seen_at = Some(Instant::now());
        }
        if self.ops_seen_at.is_none_or(|t| t.elapsed() < WRITE_WAIT) {
            pacing::Foreground::Writing
        } else if !quiet || self.reads_seen_at.is_some_and(|t| t.elapsed() < IDLE_WAIT) {
            pacing::Foreground::Reading
        } else {
            pacing::Foreground::Quiet
        }
    }

    /// Whether users read in the last `IDLE_WAIT`, writing or not (as of the last
    /// `foreground` call).
    pub fn read_lately(&self) -> bool {
        self.reads_seen_at.is_some_and(|t| t.elapsed() < IDLE_WAIT)
    }

    /// Whether no write came for `IDLE_WAIT` (as of the last `foreground` call).
    pub fn writes_idle(&self) -> bool {
        self.ops_seen_at.is_some_and(|t| t.elapsed() >= IDLE_WAIT)
    }
}

/// The background machinery of one database.
#[derive(Debug, Default)]
pub(crate) struct Background {
    pub state: Mutex<BgState>,
    cv: Condvar,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Background {
    /// Wakes every waiter: background threads and stalled writers.
    pub fn notify_all(&self) {
        self.cv.notify_all();
    }

    /// Waits until someone signals a change, or `timeout`.
    pub fn wait_for_change(&self, timeout: Duration) {
        let g = lock(&self.state);
        let _ = self.cv.wait_timeout(g, timeout);
    }

    /// Waits on the condition variable with the state lock held.
    pub fn wait<'a>(
        &self,
        g: std::sync::MutexGuard<'a, BgState>,
        timeout: Duration,
    ) -> std::sync::MutexGuard<'a, BgState> {
        match self.cv.wait_timeout(g, timeout) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        }
    }
}

/// Starts the background threads of `inner`.
pub(crate) fn start(inner: &Arc<DbInner>) -> Result<()> {
    let mut threads = lock(&inner.bg.threads);
    let db = Arc::clone(inner);
    threads.push(spawn("twain-flush", move || flush_loop(&db))?);
    let db = Arc::clone(inner);
    threads.push(spawn("twain-log", move || log_loop(&db))?);
    for i in 0..inner.opts.compaction_threads {
        let db = Arc::clone(inner);
        threads.push(spawn(&format!("twain-compact-{i}"), move || {
            yield_to_foreground(&db);
            compaction_loop(&db)
        })?);
    }
    let db = Arc::clone(inner);
    threads.push(spawn("twain-live", move || {
        yield_to_foreground(&db);
        super::space::refresh_loop(&db)
    })?);
    if inner.opts.gc_enabled {
        let db = Arc::clone(inner);
        threads.push(spawn("twain-gc", move || {
            yield_to_foreground(&db);
            gc_loop(&db)
        })?);
    }
    Ok(())
}

/// Lowers the calling background thread's CPU priority by `Options::background_nice`, so
/// that on a machine whose cores the foreground keeps busy its reads and writes take the
/// CPU first. The threads a compaction starts for its parts inherit it. A failure costs
/// only the preference: it is logged, and the thread runs on.
fn yield_to_foreground(inner: &DbInner) {
    if let Err(e) = super::priority::lower(inner.opts.background_nice) {
        crate::event_log::event!(
            inner.events,
            Warn,
            "background thread priority not lowered by {}: {e}",
            inner.opts.background_nice
        );
    }
}

/// Runs value GC whenever a flush or compaction changed something (they signal the
/// condition variable) and at least once a second, until shutdown, paced by the space
/// target (`pacing`): each wake-up and each run take the plan for the figure now, seal
/// the active log when the plan allows and it is worth it, collect the files under the
/// plan's threshold, and rest after each run as the plan's duty says. Files that had to be
/// skipped are left alone until the next wake-up.
fn gc_loop(inner: &DbInner) {
    loop {
        {
            let st = lock(&inner.bg.state);
            if st.shutting_down {
                return;
            }
            let st = inner.bg.wait(st, IDLE_WAIT);
            if st.shutting_down {
                return;
            }
        }
        if inner.has_bg_error.load(Ordering::Acquire) {
            continue;
        }
        if let Err(e) = gc_round(inner) {
            // Damaged files are set aside by the run itself; corruption never makes the
            // database read-only. I/O errors do; a round cut short because the database
            // is closing (a seal that found no spare log) is no error.
            let closing = matches!(e, crate::Error::ReadOnly(_)) && shutting_down(inner);
            if !e.is_corruption() && !closing {
                inner.set_bg_error(e);
            }
        }
    }
}

/// One wake-up of the GC thread.
fn gc_round(inner: &DbInner) -> Result<()> {
    let mut skip = HashSet::new();
    let (mut plan, quiet) = pacing::plan_now(inner);
    if inner.opts.value_layout == crate::options::ValueLayout::Hash {
        return super::group_gc::round(inner, quiet);
    }
    if inner.opts.gc_mode == GcMode::Vlog {
        return vlog_round(inner, plan, quiet);
    }
    if plan.seal_active {
        let threshold = plan.gc_threshold;
        // Under load only a log at least half full is sealed early: sealing costs a new
        // file and a memtable flush, and a full log rolls by itself.
        let min_len = if quiet {
            0
        } else {
            inner.opts.value_file_size / 2
        };
        // The seal freezes the memtable; the flush thread records the sealed file, and
        // its signal wakes this thread again to collect it.
        value_gc::seal_active_if_worth(inner, threshold, min_len)?;
    }
    // Each run rests as it works, as the duty for the foreground now leaves, and once more
    // for its last step (its install included) when it ends.
    let pace = pacing::RunPace::new(inner);
    loop {
        match value_gc::run_once(
            inner,
            &mut skip,
            Victim::Below(plan.gc_threshold),
            Some(&pace),
        )? {
            value_gc::RunOutcome::Idle => return Ok(()),
            _ if shutting_down(inner) => return Ok(()),
            value_gc::RunOutcome::Collected(_) => {
                pace.settle();
                plan = pacing::plan_now(inner).0;
            }
            _ => {}
        }
    }
}

/// One wake-up of the GC thread in vlog mode (WiscKey's circular log): while the space
/// amplification is over the budget (`pacing::Plan::over_budget`), collect the log's tail.
/// Each sealed file below the active one at the start of the round is collected at most
/// once in it, so a log of live records is not copied round and round when the figure
/// cannot come down (its floor, or a lagging live-data pass).
fn vlog_round(inner: &DbInner, plan: pacing::Plan, quiet: bool) -> Result<()> {
    let outcome = vlog_collect(inner, plan, quiet);
    set_log_room(inner, true);
    outcome
}

fn vlog_collect(inner: &DbInner, mut plan: pacing::Plan, quiet: bool) -> Result<()> {
    set_log_room(inner, false);
    if plan.seal_active {
        // As in the other modes: the active log is sealed when it holds the garbage.
        let min_len = if quiet {
            0
        } else {
            inner.opts.value_file_size / 2
        };
        value_gc::seal_active_if_worth(inner, plan.gc_threshold, min_len)?;
    }
    let horizon = lock(&inner.write.state).log.value_file().number();
    let mut skip = HashSet::new();
    while plan.over_budget && !shutting_down(inner) {
        set_log_room(inner, false);
        match value_gc::run_once(inner, &mut skip, Victim::Tail(horizon), None)? {
            value_gc::RunOutcome::Idle => return Ok(()),
            value_gc::RunOutcome::Collected(n) => {
                skip.insert(n);
            }
            _ => {}
        }
        plan = pacing::plan_now(inner).0;
    }
    Ok(())
}

/// vlog mode's space budget, held as HashKV's vLog holds its fixed size: sets how many more
/// log bytes users may write (`DbInner::log_limit`, against `Counters::log_bytes`) before
/// their writes wait (`write::wait_for_log_room`): the bytes left under
/// `space_amp_target` times the live bytes (`pacing::space_now`), none once the figure is
/// over it. A waiting writer wakes this thread, which sets the room again, so writes wait
/// for as long as GC needs to bring the figure under the target. At the end of a round
/// (`round_end`) that left the figure over the target (nothing left to collect, an error,
/// shutdown), writers get one value file of room: a budget GC cannot reach (live data
/// smaller than the log's files) never holds writes for good. An unknown figure (no
/// live-data pass yet) holds nothing.
fn set_log_room(inner: &DbInner, round_end: bool) {
    let written = Counters::get(&inner.counters.log_bytes);
    let limit = match pacing::space_now(inner) {
        Ok(Some((disk, live))) => {
            let budget = (inner.opts.space_amp_target * live as f64) as u64;
            match budget.checked_sub(disk) {
                Some(room) if room > 0 => written.saturating_add(room),
                _ if round_end => written.saturating_add(inner.opts.value_file_size),
                _ => written,
            }
        }
        _ => u64::MAX,
    };
    if inner.log_limit.swap(limit, Ordering::AcqRel) < limit {
        inner.bg.notify_all();
    }
}

/// Sleeps `d`, or until shutdown.
pub(crate) fn rest(inner: &DbInner, d: Duration) {
    let until = Instant::now() + d;
    let mut st = lock(&inner.bg.state);
    while !st.shutting_down {
        let Some(left) = until.checked_duration_since(Instant::now()) else {
            return;
        };
        if left.is_zero() {
            return;
        }
        st = inner.bg.wait(st, left);
    }
}

/// The log thread: syncs the value files the writer sealed (in file order, in full; those of
/// inline entries only once they have waited for the flush that deletes them, see
/// `vlog::sync`) and keeps one spare value file ready, so that neither a roll nor a
/// non-sync write waits for the disk.
fn log_loop(inner: &DbInner) {
    loop {
        if shutting_down(inner) {
            return;
        }
        if inner.has_bg_error.load(Ordering::Acquire) {
            // Nothing to do until the database is reopened; wake only to stop.
            let st = lock(&inner.bg.state);
            if !st.shutting_down {
                drop(inner.bg.wait(st, IDLE_WAIT));
            }
            continue;
        }
        // The spare first: a writer may be waiting for it, and it costs one small sync.
        if !inner.log_sync.has_spare() {
            match make_spare(inner) {
                Ok(spare) => inner.log_sync.put_spare(spare),
                Err(e) => {
                    inner.set_bg_error(e);
                    continue;
                }
            }
        }
        if let Some(upto) = inner.log_sync.due_upto() {
            if let Err(e) = inner.log_sync.sync_sealed(upto) {
                inner.set_bg_error(e);
            }
            inner.bg.notify_all();
        }
        inner.log_sync.wait_for_work(IDLE_WAIT);
    }
}

/// Creates the next value file: header synced, directory entry synced, registered in the
/// version (so no roll needs the version lock), with a second handle for syncs.
fn make_spare(inner: &DbInner) -> Result<SpareLog> {
    // Registered before it exists: no file of the directory is ever unknown to the
    // version (no reader looks into it before the writer has used it).
    let file = {
        let mut versions = lock(&inner.versions);
        let number = versions.new_file_number();
        let file = Arc::new(ValueFile::new(Arc::clone(&inner.fs), &inner.dir, number));
        let version = versions.add_log_file(Arc::clone(&file))?;
        inner.publish_empty_file(version);
        file
    };
    let writer = LogWriter::create(
        inner.fs.as_ref(),
        &inner.dir,
        Arc::clone(&file),
        inner.opts.log_buffer_size,
    )?;
    let syncer = inner.fs.open_append(file.path()).ctx("open", file.path())?;
    Ok(SpareLog { writer, syncer })
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(f)
        .map_err(|e| crate::Error::Io {
            op: "spawn thread",
            path: name.into(),
            source: e,
        })
}

/// Flushes frozen memtables as they come; also checks the directory's `LOCK` once per
/// `IDLE_WAIT`, so that an idle database notices it was removed or replaced.
fn flush_loop(inner: &DbInner) {
    let mut lock_checked = Instant::now();
    loop {
        {
            let mut st = lock(&inner.bg.state);
            loop {
                if st.shutting_down {
                    return;
                }
                if !inner.has_bg_error.load(Ordering::Acquire)
                    && !inner.super_version().imms.is_empty()
                {
                    break;
                }
                st = inner.bg.wait(st, IDLE_WAIT);
                if lock_checked.elapsed() >= IDLE_WAIT
                    && !inner.has_bg_error.load(Ordering::Acquire)
                {
                    drop(st);
                    if let Err(e) = inner.check_lock() {
                        inner.set_bg_error(e);
                    }
                    lock_checked = Instant::now();
                    st = lock(&inner.bg.state);
                }
            }
        }
        if let Err(e) = flush::flush_oldest(inner) {
            inner.set_bg_error(e);
        }
        inner.bg.notify_all();
    }
}

/// The level shape the options ask for.
pub(crate) fn shape(inner: &DbInner) -> LevelShape {
    LevelShape {
        l0_trigger: inner.opts.l0_compaction_trigger,
        l1_target: inner.opts.l1_target_size,
        ratio: inner.opts.level_size_ratio,
        dynamic: inner.opts.level_sizing == crate::options::LevelSizing::Dynamic,
        l0_batch: (inner.opts.l0_compaction_trigger as u64)
            .saturating_mul(inner.opts.memtable_size as u64),
        min_overlap: inner.opts.compaction_priority
            == crate::options::CompactionPriority::MinOverlap,
    }
}

fn compaction_loop(inner: &DbInner) {
    let shape = shape(inner);
    loop {
        let task = {
            let mut st = lock(&inner.bg.state);
            loop {
                if st.shutting_down {
                    return;
                }
                if !inner.has_bg_error.load(Ordering::Acquire) && !st.manual {
                    let version = Arc::clone(&inner.super_version().version);
                    let task = picker::pick(&version.state, &shape, &st.busy_tables)
                        .or_else(|| garbage_pick(inner, &mut st, &version.state))
                        .or_else(|| refresh_pick(inner, &mut st, &version));
                    if let Some(task) = task {
                        st.busy_tables.extend(task.input_numbers());
                        st.compactions_running += 1;
                        break Some(task);
                    }
                    if std::mem::take(&mut st.freeze_for_garbage) {
                        break None;
                    }
                }
                st = inner.bg.wait(st, IDLE_WAIT);
            }
        };
        // The write lock is taken without the scheduling lock held (writers take them in
        // the other order).
        let Some(task) = task else {
            if let Err(e) = freeze_for_garbage(inner) {
                inner.set_bg_error(e);
            }
            continue;
        };
        let started = Instant::now();
        let gc_runs = inner.counters.gc_runs.load(Ordering::Relaxed);
        let result = compact::run(inner, &task);
        {
            let mut st = lock(&inner.bg.state);
            for n in task.input_numbers() {
                st.busy_tables.remove(&n);
            }
            if task.reason == picker::REFRESH {
                st.refresh_not_before = Some(stale::next_busy_start(started, started.elapsed()));
                if let Ok(outputs) = &result {
                    st.refreshed.extend(outputs.iter().map(|&n| (n, gc_runs)));
                }
            }
            st.compactions_running -= 1;
        }
        if let Err(e) = result {
            inner.set_bg_error(e);
        }
        inner.bg.notify_all();
    }
}

/// A garbage compaction (`picker::pick_garbage`), with background GC enabled, when the
/// space target's plan allows them (`pacing`: the figure near or above the target, or the
/// foreground quiet and the figure above the idle target), no size compaction is due, no
/// memtable waits for its flush, some garbage hides behind shadowed versions (per the
/// newest live-data pass), and either the foreground is quiet or the log has rolled to a
/// new value file since the last garbage compaction. Under a write load that is at most one
/// garbage compaction per value file written, and only one that pays for itself
/// (`pacing::garbage_compaction_pays`: with small values inline, merging a few fresh L0
/// tables into a whole level would rewrite the level for little), so the foreground keeps
/// the machine; once it is quiet, they run back to back
/// until no table shadows another, within a bounded number of steps (each removes an
/// overlap). When no table shadows another, a table whose earliest expiry time has passed
/// is compacted (`picker::pick_expired`), so expired data in tables no other compaction
/// reaches goes too.
fn garbage_pick(
    inner: &DbInner,
    st: &mut BgState,
    state: &crate::version::VersionState,
) -> Option<picker::CompactionTask> {
    // Vlog mode's GC judges records by lookup: a compaction's drops would gain it nothing.
    if !inner.opts.gc_enabled || inner.opts.gc_mode == GcMode::Vlog {
        return None;
    }
    let fg = pacing::foreground_in(inner, st);
    let quiet = fg == pacing::Foreground::Quiet;
    let newest = state.value_files.keys().next_back().copied().unwrap_or(0);
    if st.garbage_log == 0 {
        st.garbage_log = newest;
    }
    if !quiet && newest <= st.garbage_log {
        return None;
    }
    let sv = inner.super_version();
    if !sv.imms.is_empty() {
        return None;
    }
    let garbage = shadowed_garbage(inner, &sv.version)?;
    let amp = pacing::current_amp(inner).unwrap_or(None);
    let plan = pacing::plan(
        amp,
        inner.opts.space_amp_target,
        fg,
        inner.opts.gc_threshold,
    );
    if !plan.garbage_compactions {
        return None;
    }
    if quiet && !sv.mem.is_empty() {
        st.freeze_for_garbage = true;
        return None;
    }
    let shape = shape(inner);
    let task = picker::pick_garbage(state, &shape, &st.busy_tables).or_else(|| {
        let expired = super::compact::expired_tables(&sv.version, inner.opts.clock.now_millis());
        picker::pick_expired(state, &shape, &expired, &st.busy_tables)
    })?;
    if !quiet && task.reason == picker::GARBAGE {
        let upper = task.inputs.iter().map(|t| t.file_size).sum();
        if !pacing::garbage_compaction_pays(task.input_bytes(), upper, garbage) {
            return None;
        }
    }
    st.garbage_log = newest;
    Some(task)
}

/// Freezes a non-empty active memtable for its flush, for a garbage compaction with the
/// foreground quiet (`garbage_pick`): the memtable's versions are what shadow the tables'
/// garbage, and a compaction picked before its flush would rewrite the level it merges
/// into once without them and once more for the flushed table. The GC thread's seal of a
/// log of inline entries (`value_gc::seal_active_if_worth`) freezes the memtable too, and
/// the two race; whichever comes second finds nothing to do.
fn freeze_for_garbage(inner: &DbInner) -> Result<()> {
    let mut ws = lock(&inner.write.state);
    inner.check_bg_error()?;
    if inner.log_sync.is_closing() || ws.mem.is_empty() || !inner.super_version().imms.is_empty() {
        return Ok(());
    }
    super::write::freeze_for_flush(inner, &mut ws)
}

/// A refresh compaction (`picker::pick_refresh`) of the table with the most stale handles
/// among those worth one (`stale::candidates`; the newest live-data pass's counts plus the
/// value GC runs installed since, `stale::GcTallies`), with background GC enabled (it is
/// what makes handles stale), when compactions refresh handles, no memtable waits for its
/// flush, and either the foreground is quiet or the pacing of `stale` allows one under
/// load (reads searched SVTables since the last one, and the duty spacing has passed).
/// With the foreground quiet and value GC collecting, only tables with half their handles
/// stale qualify. A table a refresh compaction wrote waits for the next value GC run.
fn refresh_pick(
    inner: &DbInner,
    st: &mut BgState,
    version: &crate::version::Version,
) -> Option<picker::CompactionTask> {
    if !inner.opts.gc_enabled || !compact::refreshes_handles(inner) {
        return None;
    }
    let quiet = pacing::foreground_in(inner, st) == pacing::Foreground::Quiet;
    let searches = inner.counters.svtable_searches.load(Ordering::Relaxed);
    if !quiet
        && (st.refresh_not_before.is_some_and(|t| Instant::now() < t)
            || searches.saturating_sub(st.refresh_searches) < stale::BUSY_MIN_SEARCHES)
    {
        return None;
    }
    if !inner.super_version().imms.is_empty() {
        return None;
    }
    let pass = inner.live_cache.last()?;
    let live = pass.outcome.ok()?;
    let gc_runs = inner.counters.gc_runs.load(Ordering::Relaxed);
    st.refreshed.retain(|_, runs| *runs >= gc_runs);
    let counts = inner
        .gc_tallies
        .with_pass(pass.generation, &live.stale_handles);
    let min_fraction = if quiet && inner.gc_tallies.collecting() {
        stale::MIN_STALE_FRACTION_WHILE_COLLECTING
    } else {
        stale::MIN_STALE_FRACTION
    };
    let mut stale = stale::candidates(version, &counts, min_fraction);
    stale.retain(|n, _| !st.refreshed.contains_key(n));
    let task = picker::pick_refresh(&version.state, &stale, &st.busy_tables)?;
    st.refresh_searches = searches;
    Some(task)
}

/// The garbage hiding behind shadowed versions (per the newest live-data pass), if any:
/// separated values no drop record marks dead yet, which a garbage compaction makes
/// collectable, and shadowed versions and tombstones in the key store itself (inline
/// values), which it removes. Without a successful pass nothing is known (`None`), and
/// nothing is compacted for garbage.
fn shadowed_garbage(
    inner: &DbInner,
    version: &crate::version::Version,
) -> Option<pacing::ShadowedGarbage> {
    let live = inner.live_cache.last()?.outcome.ok()?;
    let garbage = pacing::ShadowedGarbage {
        value_bytes: super::space::shadowed_bytes(&version.state, version, &live),
        table_bytes: live.shadowed,
    };
    (garbage.value_bytes > 0 || garbage.table_bytes > 0).then_some(garbage)
}

/// Whether the database is closing (long jobs check it and stop early).
pub(crate) fn shutting_down(inner: &DbInner) -> bool {
    lock(&inner.bg.state).shutting_down
}

/// Stops the background threads and syncs the value log, marking it cleanly closed.
/// Reports an earlier failure that made the database read-only. Idempotent.
pub(crate) fn shutdown(inner: &DbInner) -> Result<()> {
    {
        let mut st = lock(&inner.bg.state);
        if st.shutting_down {
            return inner.check_bg_error();
        }
        st.shutting_down = true;
    }
    inner.bg.notify_all();
    // A GC run throttled by `gc_bytes_per_sec` finishes at the disk's pace, not the rate's.
    inner.gc_closing.close();
    inner.log_sync.close();
    let threads = std::mem::take(&mut *lock(&inner.bg.threads));
    for t in threads {
        let _ = t.join();
    }
    let spare = inner.log_sync.discard_spare();
    if let Some(spare) = &spare {
        // Never written to: an empty file that recovery would only skip.
        spare.mark_obsolete();
    }
    inner.check_bg_error()?;
    if let Some(spare) = spare {
        // IMPORTANT: gone, durably, before the close marker is written: the marker must be
        // in the newest value file (`vlog::closed_cleanly`). Left to the file's last
        // reference (a snapshot or iterator may outlive the close), a power loss or exit
        // before that would leave an empty newest file that hides the marker, and a torn
        // manifest tail would then pass for a crash.
        inner
            .fs
            .remove_file(spare.path())
            .ctx("remove", spare.path())?;
        inner
            .fs
            .sync_dir(&inner.dir)
            .ctx("sync directory", &inner.dir)?;
    }
    let mut ws = lock(&inner.write.state);
    // Syncs go in file order: the sealed files first, then the active one.
    inner.log_sync.sync_sealed(u64::MAX)?;
    inner.log_sync.check()?;
    ws.log.sync()?;
    if inner.read_only.is_none() {
        // The cumulative counters, for the next open to start from. After the log is
        // safe: a failure here loses only the counters since the last edit.
        lock(&inner.versions).record_counters()?;
    }
    // IMPORTANT: the close marker comes last, after the manifest's last edit is durable:
    // an open that finds it knows the manifest is whole, and that a damaged or incomplete
    // last edit is lost data, not a write a crash interrupted (`db::open`).
    ws.log.sync_and_mark()?;
    drop(ws);
    crate::event_log::event!(inner.events, Info, "closed");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;
    use crate::fs::MemFs;

    /// The log thread's spare value file is registered in the version, but it holds no
    /// data: the cached live-data pass stays current, so the background does not read
    /// every table again for it (at every open, and after every log roll).
    #[test]
    fn registering_a_spare_log_leaves_the_live_data_pass_current() {
        let db = crate::Db::open(
            std::path::Path::new("/db"),
            Options::default().fs(Arc::new(MemFs::new())),
        )
        .unwrap();
        db.put("k", vec![7u8; 4096]).unwrap();
        db.flush().unwrap();
        db.refresh_live_bytes().unwrap();
        let before = db.stats().unwrap();
        assert_eq!(before.live_bytes_versions_behind, 0);
        let spare = make_spare(&db.inner).unwrap();
        let number = spare.writer.value_file().number();
        assert!(
            db.inner
                .super_version()
                .version
                .value_files
                .contains_key(&number),
            "the spare is published"
        );
        let after = db.stats().unwrap();
        assert_eq!(after.live_bytes_versions_behind, 0, "no pass is due");
        assert_eq!(after.live_bytes, before.live_bytes);
        drop(spare);
        db.close().unwrap();
    }

    /// A refresh compaction is picked from the stale handles a value GC run tallied after
    /// the newest live-data pass, without waiting for the next pass; a run that pass has
    /// seen adds nothing.
    #[test]
    fn a_refresh_is_picked_from_gc_tallies_the_newest_pass_has_not_seen() {
        // The compaction ends with a pass over the compacted tree: no handle is stale.
        let db = stale::tests::compacted(
            Options::default()
                .level_sizing(crate::options::LevelSizing::Static)
                .fs(Arc::new(MemFs::new())),
        );
        let inner = &db.inner;
        // Holding the state keeps the background threads from picking meanwhile.
        let mut st = lock(&inner.bg.state);
        st.seen_ops = inner.counters.user_ops.load(Ordering::Relaxed);
        st.ops_seen_at = Instant::now().checked_sub(IDLE_WAIT * 2);
        st.seen_reads = pacing::reads_counted(inner);
        st.reads_seen_at = st.ops_seen_at;
        let version = Arc::clone(&inner.super_version().version);
        assert!(version.levels[0].is_empty(), "all below L0");
        let table = &version.levels[1][1];
        let handles = table.table.properties().num_handles;
        assert!(handles > 0);
        assert!(
            refresh_pick(inner, &mut st, &version).is_none(),
            "nothing stale"
        );
        let pass = inner.live_cache.last().unwrap().generation;
        // A run installed at or before the pass's generation: the pass counted it.
        let seen = HashMap::from([(table.number(), handles)]);
        inner.gc_tallies.add(pass, 1, seen.clone(), &version);
        assert!(
            refresh_pick(inner, &mut st, &version).is_none(),
            "seen by the pass"
        );
        // A run installed after it (however far the live-data thread has got since).
        inner.gc_tallies.add(u64::MAX / 2, 1, seen, &version);
        let task = refresh_pick(inner, &mut st, &version).expect("a refresh from the tally");
        assert_eq!(task.reason, picker::REFRESH);
        assert_eq!((task.level, task.output_level), (1, 1));
        assert_eq!(task.inputs.len(), 1);
        assert_eq!(task.inputs[0].number, table.number());
        drop(st);
    }
}

//! Background threads: one flushes frozen memtables, `compaction_threads` run
//! compactions. They sleep on one condition variable that every state change signals.

use super::{DbInner, compact, flush, lock};
use crate::Result;
use crate::compaction::picker::{self, LevelShape};
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long idle threads sleep before looking for work again.
const IDLE_WAIT: Duration = Duration::from_secs(1);

/// Scheduling state shared by the background threads and the foreground.
#[derive(Debug, Default)]
pub(crate) struct BgState {
    pub shutting_down: bool,
    /// Tables that a running compaction reads.
    pub busy_tables: HashSet<u64>,
    pub compactions_running: usize,
    /// A manual compaction is running or waiting: automatic picking pauses.
    pub manual: bool,
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
    for i in 0..inner.opts.compaction_threads {
        let db = Arc::clone(inner);
        threads.push(spawn(&format!("twain-compact-{i}"), move || {
            compaction_loop(&db)
        })?);
    }
    if inner.opts.gc_enabled {
        let db = Arc::clone(inner);
        threads.push(spawn("twain-gc", move || gc_loop(&db))?);
    }
    Ok(())
}

/// Runs value GC whenever a flush or compaction changed something (they signal the
/// condition variable) and at least once a second, until shutdown. Files that had to be
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
        let mut skip = std::collections::HashSet::new();
        loop {
            match crate::gc::run_once(inner, &mut skip) {
                Ok(crate::gc::RunOutcome::Idle) => break,
                Ok(_) if shutting_down(inner) => break,
                Ok(_) => continue,
                Err(e) => {
                    inner.set_bg_error(e);
                    break;
                }
            }
        }
    }
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
                    if let Some(task) = picker::pick(&version.state, &shape, &st.busy_tables) {
                        st.busy_tables.extend(task.input_numbers());
                        st.compactions_running += 1;
                        break task;
                    }
                }
                st = inner.bg.wait(st, IDLE_WAIT);
            }
        };
        let result = compact::run(inner, &task);
        {
            let mut st = lock(&inner.bg.state);
            for n in task.input_numbers() {
                st.busy_tables.remove(&n);
            }
            st.compactions_running -= 1;
        }
        if let Err(e) = result {
            inner.set_bg_error(e);
        }
        inner.bg.notify_all();
    }
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
    let threads = std::mem::take(&mut *lock(&inner.bg.threads));
    for t in threads {
        let _ = t.join();
    }
    inner.check_bg_error()?;
    let mut ws = lock(&inner.write.state);
    ws.log.sync_and_mark()
}

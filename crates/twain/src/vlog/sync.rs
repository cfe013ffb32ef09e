//! Making the value log durable off the writer's path.
//!
//! The group-commit leader never syncs for a non-sync write: it hands its bytes to the
//! operating system and, when the active value file is full, switches to a *spare* file that
//! the log thread created (and synced, with its directory entry) beforehand, and queues the
//! sealed file here. Syncs then happen in file order — a value file is synced only after
//! every older one is durable — by whoever needs them:
//! - the log thread, which syncs sealed files as soon as they are queued;
//! - a flush, which needs the log durable up to its memtable's freeze position before its
//!   version edit (`sync_through`);
//! - a sync write, which needs every record before its own durable (`sync_sealed`, then the
//!   active file through its writer).
//!
//! Because of that order, a record in value file N that says it was synced (`synced_upto`
//! past the header) proves that every file before N was durable in full: recovery relies on
//! it to tell the unsynced end of the log, which may now span several files, from lost data.
//!
//! A failed sync poisons the log: no later sync may report success (the kernel may have
//! dropped the dirty pages and would not fail a second time).

use super::{LogPosition, LogWriter, ValueFile};
use crate::error::IoContext;
use crate::fs::WritableFile;
use crate::{Error, Result};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a sealed file of inline entries only may wait unsynced for the flush that
/// deletes it. After that the log thread syncs it like any other: the kernel would soon
/// write its pages back anyway (its dirty expiry is 30 s by default), and the wait bounds
/// how much of the log a power loss can take beyond the active file.
pub const INLINE_SYNC_DELAY: Duration = Duration::from_secs(10);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A value file the writer has left, waiting to be synced in full.
struct Sealed {
    file: Arc<ValueFile>,
    writer: Box<dyn WritableFile>,
    len: u64,
    queued_at: Instant,
}

impl Sealed {
    /// Whether the log thread should sync it now: tables will refer to its separated
    /// entries, or it has waited long enough for the flush that would delete it.
    fn is_due(&self, now: Instant) -> bool {
        self.file.separated_count() > 0
            || now.saturating_duration_since(self.queued_at) >= INLINE_SYNC_DELAY
    }
}

/// Sealed files a flush dropped from the queue unsynced, because its edit deleted them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Forgotten {
    /// Files dropped.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// Syncs a sealed file, then appends a sync marker vouching for every byte before it and
/// syncs again: damage found later anywhere before the marker is corruption, not a torn
/// write.
fn seal_durably(s: &mut Sealed) -> Result<()> {
    let path = s.file.path();
    s.writer.sync_data().ctx("sync", path)?;
    let mut marker = Vec::with_capacity(32);
    crate::format::vlog::put_sync_marker(&mut marker, s.len);
    s.writer.append(&marker).ctx("append", path)?;
    s.writer.sync_data().ctx("sync", path)?;
    let len = s.len + marker.len() as u64;
    s.file.set_total_bytes(len);
    s.file.mark_durable(len);
    Ok(())
}

/// The file the writer appends to, with a second handle that syncs it from other threads.
#[derive(Clone)]
struct Active {
    file: Arc<ValueFile>,
    syncer: Arc<Mutex<Box<dyn WritableFile>>>,
}

/// A value file ready to become the active one: created, its header and directory entry
/// durable, and a sync handle open.
pub struct SpareLog {
    /// The writer that will append to it.
    pub writer: LogWriter,
    /// A second handle on the same file, for syncs from other threads.
    pub syncer: Box<dyn WritableFile>,
}

impl std::fmt::Debug for SpareLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpareLog")
            .field("file", &self.writer.value_file().number())
            .finish()
    }
}

#[derive(Default)]
struct Queue {
    /// Sealed files not yet synced, oldest first.
    sealed: VecDeque<Sealed>,
    active: Option<Active>,
    spare: Option<SpareLog>,
    /// Set by the first failed sync; every later sync fails with it.
    poisoned: Option<String>,
    closing: bool,
}

/// The value log's durability state, shared by the writer, the flush and the log thread.
/// Thread-safe.
///
/// Lock order: `io` -> `queue`; `queue` is never held across I/O.
#[derive(Default)]
pub struct LogSync {
    queue: Mutex<Queue>,
    /// Held while syncing: one log sync at a time, so files are synced in order.
    io: Mutex<()>,
    cv: Condvar,
}

impl std::fmt::Debug for LogSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = lock(&self.queue);
        f.debug_struct("LogSync")
            .field("sealed", &q.sealed.len())
            .field("active", &q.active.as_ref().map(|a| a.file.number()))
            .field(
                "spare",
                &q.spare.as_ref().map(|s| s.writer.value_file().number()),
            )
            .finish()
    }
}

impl LogSync {
    /// Starts tracking `file` as the active value file, synced through `syncer`.
    pub fn set_active(&self, file: Arc<ValueFile>, syncer: Box<dyn WritableFile>) {
        lock(&self.queue).active = Some(Active {
            file,
            syncer: Arc::new(Mutex::new(syncer)),
        });
    }

    /// Queues the writer's previous file, whose every byte was handed to the operating
    /// system, to be synced in full; `next` (synced through `syncer`) becomes the active
    /// file.
    pub fn seal_and_switch(
        &self,
        old: (Arc<ValueFile>, Box<dyn WritableFile>),
        next: Arc<ValueFile>,
        syncer: Box<dyn WritableFile>,
    ) {
        let (file, writer) = old;
        let len = file.total_bytes();
        let mut q = lock(&self.queue);
        q.sealed.push_back(Sealed {
            file,
            writer,
            len,
            queued_at: Instant::now(),
        });
        q.active = Some(Active {
            file: next,
            syncer: Arc::new(Mutex::new(syncer)),
        });
        drop(q);
        self.cv.notify_all();
    }

    /// Whether a spare file is ready.
    pub fn has_spare(&self) -> bool {
        lock(&self.queue).spare.is_some()
    }

    /// Offers a spare file (the log thread does, whenever none is ready).
    pub fn put_spare(&self, spare: SpareLog) {
        lock(&self.queue).spare = Some(spare);
        self.cv.notify_all();
    }

    /// Takes the spare file, waiting up to `timeout` for the log thread to make one.
    pub fn take_spare(&self, timeout: Duration) -> Option<SpareLog> {
        let mut q = lock(&self.queue);
        if q.spare.is_none() && !timeout.is_zero() {
            q = match self.cv.wait_timeout(q, timeout) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        let spare = q.spare.take();
        drop(q);
        // The log thread makes the next one.
        self.cv.notify_all();
        spare
    }

    /// Removes the unused spare, returning its file so the caller can delete it.
    pub fn discard_spare(&self) -> Option<Arc<ValueFile>> {
        lock(&self.queue)
            .spare
            .take()
            .map(|s| Arc::clone(s.writer.value_file()))
    }

    /// The newest queued sealed file the log thread should sync now
    /// ([`Sealed::is_due`]); syncing it syncs every older one first.
    pub fn due_upto(&self) -> Option<u64> {
        let now = Instant::now();
        lock(&self.queue)
            .sealed
            .iter()
            .filter(|s| s.is_due(now))
            .map(|s| s.file.number())
            .max()
    }

    /// The log thread's wait: returns when a sealed file is due, no spare is ready, the
    /// log is closing, or `timeout` passed (or a waiting file's delay, if sooner).
    pub fn wait_for_work(&self, timeout: Duration) {
        let q = lock(&self.queue);
        let now = Instant::now();
        if q.closing || q.spare.is_none() || q.sealed.iter().any(|s| s.is_due(now)) {
            return;
        }
        let timeout = q
            .sealed
            .iter()
            .map(|s| (s.queued_at + INLINE_SYNC_DELAY).saturating_duration_since(now))
            .fold(timeout, Duration::min);
        let _ = self.cv.wait_timeout(q, timeout);
    }

    /// Makes the log durable up to `upto` if the edit that records `upto` as the flushed
    /// point needs it, and says whether it synced. It does when some sealed file before
    /// `upto.file` that is not durable yet holds separated entries (the flush's table or
    /// drop records may refer to them), or when the file `upto` lies in is not durable up
    /// to it (recovery starts reading there). Sealed files of inline entries only before
    /// `upto.file` need nothing: the edit deletes them.
    /// REQUIRES: the writer handed every byte before `upto` to the operating system.
    pub fn sync_for_flush(&self, upto: LogPosition) -> Result<bool> {
        // Under `io`: a file the log thread took off the queue is durable (or the log is
        // poisoned) by the time this looks.
        let _io = lock(&self.io);
        self.check()?;
        let needed = {
            let q = lock(&self.queue);
            let short = |f: &ValueFile| f.number() == upto.file && f.durable_len() < upto.offset;
            q.sealed.iter().any(|s| {
                (s.file.number() < upto.file && s.file.separated_count() > 0) || short(&s.file)
            }) || q.active.as_ref().is_some_and(|a| short(&a.file))
        };
        if needed {
            self.sync_through_locked(upto)?;
        }
        Ok(needed)
    }

    /// Drops queued sealed files that `exists` says are gone from the version (an edit
    /// deleted them) without syncing them, and closes their handles, so the operating
    /// system can discard their unwritten pages. Returns what it dropped.
    pub fn forget_deleted(&self, exists: impl Fn(u64) -> bool) -> Forgotten {
        let mut gone = Vec::new();
        {
            let mut q = lock(&self.queue);
            let mut i = 0;
            while i < q.sealed.len() {
                if exists(q.sealed[i].file.number()) {
                    i += 1;
                } else if let Some(s) = q.sealed.remove(i) {
                    gone.push(s);
                }
            }
        }
        // Closed outside the lock.
        let forgotten = Forgotten {
            files: gone.len() as u64,
            bytes: gone.iter().map(|s| s.len).sum(),
        };
        drop(gone);
        forgotten
    }

    /// Whether the log is closing (no spare will come).
    pub fn is_closing(&self) -> bool {
        lock(&self.queue).closing
    }

    /// Wakes the log thread for shutdown.
    pub fn close(&self) {
        lock(&self.queue).closing = true;
        self.cv.notify_all();
    }

    /// Fails if an earlier sync failed.
    pub fn check(&self) -> Result<()> {
        match &lock(&self.queue).poisoned {
            Some(msg) => Err(Error::ReadOnly(msg.clone())),
            None => Ok(()),
        }
    }

    /// Records a failed sync: no later sync reports success.
    pub fn poison(&self, err: &Error) {
        let mut q = lock(&self.queue);
        if q.poisoned.is_none() {
            q.poisoned = Some(format!("a value-log sync failed: {err}"));
        }
    }

    /// Syncs every queued sealed file numbered at most `upto_file`, oldest first.
    pub fn sync_sealed(&self, upto_file: u64) -> Result<()> {
        let _io = lock(&self.io);
        self.sync_sealed_locked(upto_file)
    }

    /// REQUIRES: `io` is held.
    fn sync_sealed_locked(&self, upto_file: u64) -> Result<()> {
        self.check()?;
        loop {
            let next = {
                let mut q = lock(&self.queue);
                match q.sealed.front() {
                    Some(s) if s.file.number() <= upto_file => q.sealed.pop_front(),
                    _ => None,
                }
            };
            let Some(mut s) = next else {
                return Ok(());
            };
            // IMPORTANT: a failed fsync is never retried: the log is poisoned.
            if let Err(e) = seal_durably(&mut s) {
                self.poison(&e);
                return Err(e);
            }
        }
    }

    /// Makes the log durable up to `upto`: every sealed file up to `upto.file` in full,
    /// then, if `upto.file` is the active file, that file through its sync handle.
    /// REQUIRES: the writer handed every byte before `upto` to the operating system.
    pub fn sync_through(&self, upto: LogPosition) -> Result<()> {
        let _io = lock(&self.io);
        self.sync_through_locked(upto)
    }

    /// REQUIRES: `io` is held.
    fn sync_through_locked(&self, upto: LogPosition) -> Result<()> {
        // A roll can queue the file `upto` names between the sealed syncs and the look at
        // the active file: look at both under one queue lock, and go again if it did.
        let active = loop {
            self.sync_sealed_locked(upto.file)?;
            let q = lock(&self.queue);
            if q.sealed.front().is_none_or(|s| s.file.number() > upto.file) {
                break q.active.clone();
            }
        };
        let Some(active) = active else {
            return Ok(());
        };
        if active.file.number() != upto.file || active.file.durable_len() >= upto.offset {
            return Ok(());
        }
        let written = active.file.written_len();
        // IMPORTANT: a failed fsync is never retried: the log is poisoned.
        if let Err(e) = lock(&active.syncer)
            .sync_data()
            .ctx("sync", active.file.path())
        {
            self.poison(&e);
            return Err(e);
        }
        active.file.mark_durable(written);
        if written < upto.offset {
            return Err(Error::InvalidArgument(format!(
                "log sync asked for offset {} of value file {}, but only {written} bytes were written out",
                upto.offset, upto.file
            )));
        }
        Ok(())
    }
}

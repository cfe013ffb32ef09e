//! Who owns the engine objects handed to Python, and how closing takes them back.
//!
//! A [`Handle`] owns the open [`twain::Db`]. Each snapshot, iterator and entry handed to
//! Python owns its engine object through a [`Slot`], which the handle also knows of
//! (weakly): closing the database empties every slot, so no engine object outlives
//! `close()` (each holds the engine's state, and with it the directory's lock) and a later
//! use raises `ClosedError` instead of touching a closed engine. A snapshot or iterator
//! closed by itself empties its own slot the same way; the slot remembers who closed it,
//! for the error's message.
//!
//! IMPORTANT: no lock here is ever held while attaching to the interpreter: calls take
//! and release them inside `Python::detach`, and turn failures into exceptions only
//! after. A thread holding a lock while waiting for the GIL would deadlock with a thread
//! holding the GIL while waiting for that lock.
//!
//! Lock order: a source's slot (the database's or a snapshot's), then the registry. An
//! engine object is made and registered under its source's slot, so `close` either finds
//! it registered or makes its registration fail before letting go of the source. `close`
//! itself holds one lock at a time: it takes the database out of its slot, marks the
//! registry closed, then empties the registered slots one by one.

use crate::errors::Failure;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

/// An engine object owned by a Python object until it is released. Thread-safe: calls
/// share it (an object that needs exclusive access, like an iterator, is put in a
/// `Mutex` first), and `take` waits for the calls in progress.
pub struct Slot<T> {
    value: RwLock<Held<T>>,
}

/// What a slot holds.
enum Held<T> {
    Open(T),
    /// Released; the text names who was closed ("database", "iterator", ...), for the
    /// `ClosedError` of later calls.
    Released(&'static str),
}

impl<T> Slot<T> {
    /// A slot holding `value`.
    pub fn new(value: T) -> Slot<T> {
        Slot {
            value: RwLock::new(Held::Open(value)),
        }
    }

    /// Runs `f` on the object, or fails with `ClosedError` if it was released.
    /// REQUIRES: the interpreter is detached.
    pub fn with<R>(&self, f: impl FnOnce(&T) -> Result<R, Failure>) -> Result<R, Failure> {
        match &*self.read() {
            Held::Open(v) => f(v),
            Held::Released(by) => Err(Failure::Closed(by)),
        }
    }

    /// [`Slot::with`], detached from the interpreter while it runs, failing with the
    /// Python exception.
    pub fn call<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&T) -> twain::Result<R> + Send,
    ) -> PyResult<R>
    where
        T: Send + Sync,
    {
        Ok(py.detach(|| self.with(|v| Ok(f(v)?)))?)
    }

    /// Takes the object out, waiting for calls in progress; later calls fail with a
    /// `ClosedError` saying `by` ("database", "iterator", ...) is closed. Taking it again
    /// returns `None` and keeps the first reason.
    /// REQUIRES: the interpreter is detached.
    pub fn take(&self, by: &'static str) -> Option<T> {
        let mut held = self.write();
        match std::mem::replace(&mut *held, Held::Released(by)) {
            Held::Open(v) => Some(v),
            first @ Held::Released(_) => {
                *held = first;
                None
            }
        }
    }

    /// Whether the object was released.
    /// REQUIRES: the interpreter is detached, or no call on the slot can be in progress.
    pub fn is_released(&self) -> bool {
        matches!(&*self.read(), Held::Released(_))
    }

    // An engine call that panicked (it should not) poisons the lock; the object itself is
    // still sound, as engine objects keep their invariants across a panic.
    fn read(&self) -> RwLockReadGuard<'_, Held<T>> {
        self.value.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Held<T>> {
        self.value.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// Something `close` must take back.
trait Release: Send + Sync {
    fn release(&self);
}

impl<T: Send + Sync> Release for Slot<T> {
    fn release(&self) {
        drop(self.take("database"));
    }
}

/// The slots handed out by one handle.
#[derive(Default)]
struct Registry {
    closed: bool,
    held: Vec<Weak<dyn Release>>,
    /// Forget dead slots when `held` grows to this length (twice the live ones after the
    /// last pass, so a scan adopting many entries costs O(1) per adoption).
    prune_at: usize,
}

/// The open database, shared by the Python `Db`, its snapshots and iterators (which only
/// hold their own slots). Thread-safe. Dropping it closes the database.
pub struct Handle {
    db: Slot<twain::Db>,
    registry: Mutex<Registry>,
}

impl Handle {
    /// Takes ownership of an open database.
    pub fn new(db: twain::Db) -> Handle {
        Handle {
            db: Slot::new(db),
            registry: Mutex::new(Registry::default()),
        }
    }

    /// The database's slot: calls through it fail with `ClosedError` once closed.
    pub fn db(&self) -> &Slot<twain::Db> {
        &self.db
    }

    /// Puts `value` in a slot that `close` will empty; fails if the database is closed.
    /// REQUIRES: the interpreter is detached.
    pub fn adopt<T: Send + Sync + 'static>(&self, value: T) -> Result<Arc<Slot<T>>, Failure> {
        let slot = Arc::new(Slot::new(value));
        let mut reg = self.registry();
        if reg.closed {
            return Err(Failure::Closed("database"));
        }
        // Forget the slots whose Python objects are gone, so the list tracks live ones.
        if reg.held.len() >= reg.prune_at {
            reg.held.retain(|w| w.strong_count() > 0);
            reg.prune_at = (2 * reg.held.len()).max(64);
        }
        let weak: Weak<dyn Release> = Arc::downgrade(&slot) as Weak<dyn Release>;
        reg.held.push(weak);
        Ok(slot)
    }

    /// Closes the database: waits for calls in progress, releases every snapshot and
    /// iterator, then closes the engine, reporting the error of its final sync. Closing
    /// again does nothing.
    /// REQUIRES: the interpreter is detached.
    pub fn close(&self) -> Result<(), Failure> {
        let Some(db) = self.db.take("database") else {
            return Ok(());
        };
        let held = {
            let mut reg = self.registry();
            reg.closed = true;
            std::mem::take(&mut reg.held)
        };
        for obj in held.iter().filter_map(Weak::upgrade) {
            obj.release();
        }
        Ok(db.close()?)
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Dropped without `close()`: nothing to report an error to. The last holder was a
        // Python object, so the thread is attached: detach while close waits and syncs,
        // as every engine call does (and close plainly if the interpreter is gone).
        let handle = &*self;
        let closed = Python::try_attach(|py| py.detach(|| handle.close()));
        if closed.is_none() {
            let _ = handle.close();
        }
    }
}

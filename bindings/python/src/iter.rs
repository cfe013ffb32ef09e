//! Iterators handed to Python: what a scan covers, the engine cursors behind them, and
//! walking and moving a cursor from Python.

use crate::convert::{Bytes, pair};
use crate::errors::Failure;
use crate::handle::{Handle, Slot};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::ops::Bound as KeyBound;
use std::sync::{Arc, Mutex};
use twain::{DbIterator, ReadOptions, Snapshot};

/// What an iterator reads from: the live database or a snapshot.
pub trait Source {
    /// Iterates over the keys within the bounds.
    fn range_iter(
        &self,
        bounds: (KeyBound<&[u8]>, KeyBound<&[u8]>),
        opts: &ReadOptions,
    ) -> DbIterator;
    /// Iterates over the keys starting with `prefix`.
    fn prefix_iter(&self, prefix: &[u8], opts: &ReadOptions) -> DbIterator;
}

impl Source for twain::Db {
    fn range_iter(
        &self,
        bounds: (KeyBound<&[u8]>, KeyBound<&[u8]>),
        opts: &ReadOptions,
    ) -> DbIterator {
        self.range_opt::<&[u8], _>(bounds, opts)
    }
    fn prefix_iter(&self, prefix: &[u8], opts: &ReadOptions) -> DbIterator {
        self.prefix_opt(prefix, opts)
    }
}

impl Source for Snapshot {
    fn range_iter(
        &self,
        bounds: (KeyBound<&[u8]>, KeyBound<&[u8]>),
        opts: &ReadOptions,
    ) -> DbIterator {
        self.range_opt::<&[u8], _>(bounds, opts)
    }
    fn prefix_iter(&self, prefix: &[u8], opts: &ReadOptions) -> DbIterator {
        self.prefix_opt(prefix, opts)
    }
}

/// The keys a Python iterator covers.
pub enum Scan<'a> {
    /// From `start` (inclusive) to `end` (exclusive); `None` is unbounded.
    Range {
        /// The first key, if bounded.
        start: Option<Bytes<'a>>,
        /// The key after the last, if bounded.
        end: Option<Bytes<'a>>,
    },
    /// The keys starting with this prefix.
    Prefix(Bytes<'a>),
}

impl Scan<'_> {
    /// An engine iterator over the scan's keys in `source`.
    pub fn open(&self, source: &impl Source, opts: &ReadOptions) -> DbIterator {
        match self {
            Scan::Range { start, end } => {
                let lower = start
                    .as_ref()
                    .map_or(KeyBound::Unbounded, |k| KeyBound::Included(k.as_ref()));
                let upper = end
                    .as_ref()
                    .map_or(KeyBound::Unbounded, |k| KeyBound::Excluded(k.as_ref()));
                source.range_iter((lower, upper), opts)
            }
            Scan::Prefix(p) => source.prefix_iter(p.as_ref(), opts),
        }
    }
}

/// An engine cursor that a Python iterator steps through, either way, and moves.
pub trait Cursor: Send + 'static {
    /// What a step yields.
    type Item: Send;
    /// The next item after the cursor.
    fn forward(&mut self) -> Option<Result<Self::Item, Failure>>;
    /// The item before the cursor.
    fn back(&mut self) -> Option<Result<Self::Item, Failure>>;
    /// Positions the cursor so that `forward` yields the first key `>= key`.
    fn seek(&mut self, key: &[u8]);
    /// Positions the cursor so that `back` yields the last key `<= key`.
    fn seek_for_prev(&mut self, key: &[u8]);
    /// Positions the cursor past the range: `back` yields its last key.
    fn seek_to_last(&mut self);
}

/// The engine's cursors, which share their method names.
macro_rules! engine_cursor {
    ($cursor:ty, $item:ty) => {
        impl Cursor for $cursor {
            type Item = $item;
            fn forward(&mut self) -> Option<Result<$item, Failure>> {
                Some(self.next()?.map_err(Failure::from))
            }
            fn back(&mut self) -> Option<Result<$item, Failure>> {
                Some(self.prev()?.map_err(Failure::from))
            }
            fn seek(&mut self, key: &[u8]) {
                <$cursor>::seek(self, key);
            }
            fn seek_for_prev(&mut self, key: &[u8]) {
                <$cursor>::seek_for_prev(self, key);
            }
            fn seek_to_last(&mut self) {
                <$cursor>::seek_to_last(self);
            }
        }
    };
}

engine_cursor!(DbIterator, twain::KvPair);
engine_cursor!(twain::Keys, Vec<u8>);

/// The engine's entries, each put in a slot that `close` empties as it is yielded.
pub struct EntryCursor {
    entries: twain::Entries,
    handle: Arc<Handle>,
}

impl EntryCursor {
    /// Entries from `entries`, whose slots `handle`'s `close` empties.
    pub fn new(entries: twain::Entries, handle: Arc<Handle>) -> EntryCursor {
        EntryCursor { entries, handle }
    }

    /// REQUIRES: the interpreter is detached.
    fn adopt(&self, entry: twain::Result<twain::Entry>) -> Result<PyEntry, Failure> {
        let entry = entry?;
        let key = entry.key().to_vec();
        let slot = self.handle.adopt(entry)?;
        Ok(PyEntry { key, slot })
    }
}

impl Cursor for EntryCursor {
    type Item = PyEntry;
    fn forward(&mut self) -> Option<Result<PyEntry, Failure>> {
        let entry = self.entries.next()?;
        Some(self.adopt(entry))
    }
    fn back(&mut self) -> Option<Result<PyEntry, Failure>> {
        let entry = self.entries.prev()?;
        Some(self.adopt(entry))
    }
    fn seek(&mut self, key: &[u8]) {
        self.entries.seek(key);
    }
    fn seek_for_prev(&mut self, key: &[u8]) {
        self.entries.seek_for_prev(key);
    }
    fn seek_to_last(&mut self) {
        self.entries.seek_to_last();
    }
}

/// A cursor walked one way: forward, or (`reverse`) back from the end of its range. An
/// error is raised once and ends the walk, until a seek starts it again.
pub struct Walk<C> {
    cursor: C,
    reverse: bool,
    failed: bool,
}

impl<C: Cursor> Walk<C> {
    /// A walk from the start of `cursor`'s range, or (`reverse`) from its end.
    pub fn new(mut cursor: C, reverse: bool) -> Walk<C> {
        if reverse {
            cursor.seek_to_last();
        }
        Walk {
            cursor,
            reverse,
            failed: false,
        }
    }

    fn step(&mut self) -> Result<Option<C::Item>, Failure> {
        if self.failed {
            return Ok(None);
        }
        let step = if self.reverse {
            self.cursor.back()
        } else {
            self.cursor.forward()
        };
        step.transpose().inspect_err(|_| self.failed = true)
    }

    fn seek(&mut self, key: &[u8]) {
        self.failed = false;
        if self.reverse {
            self.cursor.seek_for_prev(key);
        } else {
            self.cursor.seek(key);
        }
    }
}

/// The part every Python iterator shares: its walk, in a slot that its own `close` or
/// the database's empties. Thread-safe: threads sharing one iterator take turns.
pub struct Steps<C> {
    slot: Arc<Slot<Mutex<Walk<C>>>>,
}

impl<C: Cursor> Steps<C> {
    /// Steps through the walk in `slot`.
    pub fn new(slot: Arc<Slot<Mutex<Walk<C>>>>) -> Steps<C> {
        Steps { slot }
    }

    fn next(&self, py: Python<'_>) -> PyResult<Option<C::Item>> {
        Ok(py.detach(|| self.slot.with(|w| lock(w).step()))?)
    }

    fn seek(&self, py: Python<'_>, key: &[u8]) -> PyResult<()> {
        Ok(py.detach(|| {
            self.slot.with(|w| {
                lock(w).seek(key);
                Ok(())
            })
        })?)
    }

    fn close(&self, py: Python<'_>) {
        py.detach(|| drop(self.slot.take("iterator")));
    }

    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.slot.is_released())
    }
}

// A walk is sound after a panic in the engine (it should not panic): its cursor keeps its
// invariants.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A Python iterator class over one kind of cursor: `__next__` turns each item into
/// `$out` by `$convert`; `seek`, `close`, `closed` and the `with` block are the same for
/// every kind.
macro_rules! iterator_class {
    (
        $(#[$doc:meta])*
        $class:ident, $name:literal, $cursor:ty,
        |$py:ident, $item:ident| -> $out:ty $convert:block
    ) => {
        $(#[$doc])*
        #[pyclass(name = $name, module = "twaindb", frozen)]
        pub struct $class {
            steps: Steps<$cursor>,
        }

        impl From<Steps<$cursor>> for $class {
            fn from(steps: Steps<$cursor>) -> $class {
                $class { steps }
            }
        }

        #[pymethods]
        impl $class {
            fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
                slf
            }

            fn __next__<'py>(&self, $py: Python<'py>) -> PyResult<Option<$out>> {
                Ok(self.steps.next($py)?.map(|$item| $convert))
            }

            /// Moves the iterator within its range: the next item is the first at or
            /// after `key` (in reverse, the last at or before `key`).
            fn seek(&self, py: Python<'_>, key: Bytes<'_>) -> PyResult<()> {
                self.steps.seek(py, key.as_ref())
            }

            /// Releases the iterator (and the files it holds); later steps raise
            /// `ClosedError`. Idempotent.
            fn close(&self, py: Python<'_>) {
                self.steps.close(py)
            }

            /// Whether the iterator (or its database) was closed.
            #[getter]
            fn closed(&self, py: Python<'_>) -> bool {
                self.steps.closed(py)
            }

            fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
                slf
            }

            #[pyo3(signature = (*_exc))]
            fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) {
                self.steps.close(py)
            }
        }
    };
}

iterator_class!(
    /// An iterator over `(key, value)` pairs of `bytes`, in key order or in reverse. Sees
    /// the database as it was when made, however long it lives. Raises `ClosedError` once
    /// it or the database is closed. Thread-safe: threads sharing one iterator take turns.
    PyItemIterator, "ItemIterator", DbIterator,
    |py, kv| -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>) { pair(py, kv) }
);

iterator_class!(
    /// An iterator over keys (`bytes`) only: no value file is read. Otherwise like
    /// `ItemIterator`.
    PyKeyIterator, "KeyIterator", twain::Keys,
    |py, key| -> Bound<'py, PyBytes> { PyBytes::new(py, &key) }
);

iterator_class!(
    /// An iterator over values (`bytes`) only, in the order of their keys. Otherwise like
    /// `ItemIterator`.
    PyValueIterator, "ValueIterator", DbIterator,
    |py, kv| -> Bound<'py, PyBytes> { PyBytes::new(py, &kv.1) }
);

iterator_class!(
    /// An iterator over `Entry`s: each entry's value is read only when its `value()` is
    /// called. Otherwise like `ItemIterator`.
    PyEntryIterator, "EntryIterator", EntryCursor,
    |_py, entry| -> PyEntry { entry }
);

/// A key and its value, read from disk when `value()` is called (each call reads).
/// Raises `ClosedError` once the database is closed.
#[pyclass(name = "Entry", module = "twaindb", frozen)]
pub struct PyEntry {
    key: Vec<u8>,
    slot: Arc<Slot<twain::Entry>>,
}

#[pymethods]
impl PyEntry {
    /// The key.
    #[getter]
    fn key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.key)
    }

    /// The value, read now.
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.slot.call(py, |e| e.value())?;
        Ok(PyBytes::new(py, &v))
    }

    fn __repr__(&self) -> String {
        format!("Entry(key={:?})", String::from_utf8_lossy(&self.key))
    }
}

//! Iterators handed to Python: what a scan covers, and stepping through it.

use crate::convert::{Bytes, pair};
use crate::handle::{Handle, Slot};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ops::Bound as KeyBound;
use std::sync::{Arc, Mutex};
use twain::{DbIterator, Snapshot};

/// What an iterator reads from: the live database or a snapshot.
pub trait Source {
    /// Iterates over the keys within the bounds.
    fn range_iter(&self, bounds: (KeyBound<&[u8]>, KeyBound<&[u8]>)) -> DbIterator;
    /// Iterates over the keys starting with `prefix`.
    fn prefix_iter(&self, prefix: &[u8]) -> DbIterator;
}

impl Source for twain::Db {
    fn range_iter(&self, bounds: (KeyBound<&[u8]>, KeyBound<&[u8]>)) -> DbIterator {
        self.range::<&[u8], _>(bounds)
    }
    fn prefix_iter(&self, prefix: &[u8]) -> DbIterator {
        self.prefix(prefix)
    }
}

impl Source for Snapshot {
    fn range_iter(&self, bounds: (KeyBound<&[u8]>, KeyBound<&[u8]>)) -> DbIterator {
        self.range::<&[u8], _>(bounds)
    }
    fn prefix_iter(&self, prefix: &[u8]) -> DbIterator {
        self.prefix(prefix)
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
    pub fn open(&self, source: &impl Source) -> DbIterator {
        match self {
            Scan::Range { start, end } => {
                let lower = start
                    .as_ref()
                    .map_or(KeyBound::Unbounded, |k| KeyBound::Included(k.as_ref()));
                let upper = end
                    .as_ref()
                    .map_or(KeyBound::Unbounded, |k| KeyBound::Excluded(k.as_ref()));
                source.range_iter((lower, upper))
            }
            Scan::Prefix(p) => source.prefix_iter(p.as_ref()),
        }
    }
}

/// An iterator over `(key, value)` pairs of `bytes`, in key order or (`reverse`) in
/// reverse. Sees the database as it was when made, however long it lives. Raises
/// `ClosedError` once the database is closed. Thread-safe: threads sharing one iterator
/// take turns.
#[pyclass(name = "Iterator", module = "twain", frozen)]
pub struct PyIterator {
    slot: Arc<Slot<Mutex<DbIterator>>>,
    reverse: bool,
}

impl PyIterator {
    /// An iterator stepping through the engine iterator in `slot`.
    pub fn new(slot: Arc<Slot<Mutex<DbIterator>>>, reverse: bool) -> PyIterator {
        PyIterator { slot, reverse }
    }
}

#[pymethods]
impl PyIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>> {
        let reverse = self.reverse;
        let step = self.slot.call(py, |it| {
            let mut it = it.lock().unwrap_or_else(|e| e.into_inner());
            if reverse { it.next_back() } else { it.next() }.transpose()
        })?;
        Ok(step.map(|kv| pair(py, kv)))
    }
}

/// An iterator over keys (`bytes`) only, in key order or (`reverse`) in reverse: no
/// value file is read. Otherwise like `Iterator`.
#[pyclass(name = "KeyIterator", module = "twain", frozen)]
pub struct PyKeyIterator {
    slot: Arc<Slot<Mutex<twain::Keys>>>,
    reverse: bool,
}

impl PyKeyIterator {
    /// An iterator stepping through the engine iterator in `slot`.
    pub fn new(slot: Arc<Slot<Mutex<twain::Keys>>>, reverse: bool) -> PyKeyIterator {
        PyKeyIterator { slot, reverse }
    }
}

#[pymethods]
impl PyKeyIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let reverse = self.reverse;
        let step = self.slot.call(py, |it| {
            let mut it = it.lock().unwrap_or_else(|e| e.into_inner());
            if reverse { it.next_back() } else { it.next() }.transpose()
        })?;
        Ok(step.map(|k| PyBytes::new(py, &k)))
    }
}

/// An iterator over `Entry`s, in key order or (`reverse`) in reverse: each entry's
/// value is read only when its `value()` is called. Otherwise like `Iterator`.
#[pyclass(name = "EntryIterator", module = "twain", frozen)]
pub struct PyEntryIterator {
    slot: Arc<Slot<Mutex<twain::Entries>>>,
    handle: Arc<Handle>,
    reverse: bool,
}

impl PyEntryIterator {
    /// An iterator stepping through the engine iterator in `slot`, whose entries
    /// `handle`'s `close` releases.
    pub fn new(
        slot: Arc<Slot<Mutex<twain::Entries>>>,
        handle: Arc<Handle>,
        reverse: bool,
    ) -> PyEntryIterator {
        PyEntryIterator {
            slot,
            handle,
            reverse,
        }
    }
}

#[pymethods]
impl PyEntryIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyEntry>> {
        let reverse = self.reverse;
        let step = py.detach(|| {
            self.slot.with(|it| {
                let mut it = it.lock().unwrap_or_else(|e| e.into_inner());
                let entry = if reverse { it.next_back() } else { it.next() }.transpose()?;
                entry
                    .map(|e| {
                        let key = e.key().to_vec();
                        self.handle.adopt(e, "entry").map(|slot| PyEntry { key, slot })
                    })
                    .transpose()
            })
        })?;
        Ok(step)
    }
}

/// A key and its value, read from disk when `value()` is called (each call reads).
/// Raises `ClosedError` once the database is closed.
#[pyclass(name = "Entry", module = "twain", frozen)]
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

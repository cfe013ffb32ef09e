//! `twain.Reader`: the reads shared by a database and a snapshot — `get` and the
//! iterators — written once for both.

use crate::convert::Bytes;
use crate::handle::{Handle, Slot};
use crate::iter::{PyEntryIterator, PyIterator, PyKeyIterator, Scan};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Arc, Mutex};

/// What a reader reads.
enum View {
    /// The database as it is at each call.
    Live,
    /// The database as it was when the snapshot was taken.
    Snapshot(Arc<Slot<twain::Snapshot>>),
}

/// The base class of `Db` and `Snapshot`: point reads and iterators. Thread-safe.
#[pyclass(name = "Reader", module = "twain", subclass, frozen)]
pub struct Reader {
    handle: Arc<Handle>,
    view: View,
}

impl Reader {
    /// Reads the live database behind `handle`.
    pub fn live(handle: Arc<Handle>) -> Reader {
        Reader {
            handle,
            view: View::Live,
        }
    }

    /// Reads through the snapshot in `slot`, taken from `handle`'s database.
    pub fn snapshot(handle: Arc<Handle>, slot: Arc<Slot<twain::Snapshot>>) -> Reader {
        Reader {
            handle,
            view: View::Snapshot(slot),
        }
    }

    /// An engine iterator over `scan`, made into a `T` by `shape`, in a slot `close`
    /// empties.
    fn adopt_scan<T: Send + 'static>(
        &self,
        py: Python<'_>,
        scan: Scan<'_>,
        shape: impl Fn(twain::DbIterator) -> T + Send + Sync,
    ) -> PyResult<Arc<Slot<Mutex<T>>>> {
        let adopt = |it| self.handle.adopt(Mutex::new(shape(it)), "database");
        Ok(py.detach(|| match &self.view {
            View::Live => self.handle.db().with(|db| adopt(scan.open(db))),
            View::Snapshot(snap) => snap.with(|s| adopt(scan.open(s))),
        })?)
    }

    fn open(&self, py: Python<'_>, scan: Scan<'_>, reverse: bool) -> PyResult<PyIterator> {
        let slot = self.adopt_scan(py, scan, |it| it)?;
        Ok(PyIterator::new(slot, reverse))
    }

    /// The scan `keys` and `entries` cover: a prefix, or a range.
    fn scan_of<'a>(
        start: Option<Bytes<'a>>,
        end: Option<Bytes<'a>>,
        prefix: Option<Bytes<'a>>,
    ) -> PyResult<Scan<'a>> {
        match prefix {
            Some(_) if start.is_some() || end.is_some() => Err(
                pyo3::exceptions::PyValueError::new_err("give a prefix or a range, not both"),
            ),
            Some(p) => Ok(Scan::Prefix(p)),
            None => Ok(Scan::Range { start, end }),
        }
    }
}

#[pymethods]
impl Reader {
    /// The value of `key`, or `None`.
    fn get<'py>(&self, py: Python<'py>, key: Bytes<'_>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let value = match &self.view {
            View::Live => self.handle.db().call(py, |db| db.get(&key)),
            View::Snapshot(snap) => snap.call(py, |s| s.get(&key)),
        }?;
        Ok(value.map(|v| PyBytes::new(py, &v)))
    }

    /// Every key in order (or in reverse).
    #[pyo3(signature = (reverse = false))]
    fn iter(&self, py: Python<'_>, reverse: bool) -> PyResult<PyIterator> {
        let all = Scan::Range {
            start: None,
            end: None,
        };
        self.open(py, all, reverse)
    }

    /// The keys from `start` (inclusive) to `end` (exclusive); `None` is unbounded.
    #[pyo3(signature = (start = None, end = None, reverse = false))]
    fn range(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
    ) -> PyResult<PyIterator> {
        self.open(py, Scan::Range { start, end }, reverse)
    }

    /// The keys starting with `prefix`.
    #[pyo3(signature = (prefix, reverse = false))]
    fn prefix(&self, py: Python<'_>, prefix: Bytes<'_>, reverse: bool) -> PyResult<PyIterator> {
        self.open(py, Scan::Prefix(prefix), reverse)
    }

    /// The keys from `start` (inclusive) to `end` (exclusive), or those starting with
    /// `prefix`, without reading any value file.
    #[pyo3(signature = (start = None, end = None, reverse = false, prefix = None))]
    fn keys(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        prefix: Option<Bytes<'_>>,
    ) -> PyResult<PyKeyIterator> {
        let slot = self.adopt_scan(py, Self::scan_of(start, end, prefix)?, |it| it.into_keys())?;
        Ok(PyKeyIterator::new(slot, reverse))
    }

    /// Entries (`key`, and `value()` read when called) from `start` (inclusive) to `end`
    /// (exclusive), or those starting with `prefix`.
    #[pyo3(signature = (start = None, end = None, reverse = false, prefix = None))]
    fn entries(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        prefix: Option<Bytes<'_>>,
    ) -> PyResult<PyEntryIterator> {
        let entries = |it: twain::DbIterator| it.into_entries();
        let slot = self.adopt_scan(py, Self::scan_of(start, end, prefix)?, entries)?;
        Ok(PyEntryIterator::new(slot, Arc::clone(&self.handle), reverse))
    }
}

//! `twaindb.Reader`: the reads shared by a database and a snapshot — `get`, the read side
//! of the mapping protocol and the iterators — written once for both.

use crate::convert::Bytes;
use crate::handle::{Handle, Slot};
use crate::iter::{
    Cursor, EntryCursor, PyEntryIterator, PyItemIterator, PyKeyIterator, PyValueIterator, Scan,
    Steps, Walk,
};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Arc, Mutex};
use twain::ReadOptions;

/// What a reader reads.
enum View {
    /// The database as it is at each call.
    Live,
    /// The database as it was when the snapshot was taken.
    Snapshot(Arc<Slot<twain::Snapshot>>),
}

/// The base class of `Db` and `Snapshot`: point reads, the reads of the mapping protocol
/// (`reader[key]`, `key in reader`, `iter(reader)`, `keys()`, `values()`, `items()`,
/// `get(key, default)`) and iterators. Thread-safe. No `len()`: the engine keeps no exact
/// count of keys, and counting them is a scan of every table.
#[pyclass(name = "Reader", module = "twaindb", subclass, frozen)]
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

    /// A walk over `scan` (backwards if `reverse`) of the cursor `shape` makes from an
    /// engine iterator, in a slot `close` empties.
    fn walk<C: Cursor>(
        &self,
        py: Python<'_>,
        (scan, opts): (Scan<'_>, ReadOptions),
        reverse: bool,
        shape: impl Fn(twain::DbIterator) -> C + Send + Sync,
    ) -> PyResult<Steps<C>> {
        let adopt = |it| self.handle.adopt(Mutex::new(Walk::new(shape(it), reverse)));
        let slot = py.detach(|| match &self.view {
            View::Live => self.handle.db().with(|db| adopt(scan.open(db, &opts))),
            View::Snapshot(snap) => snap.with(|s| adopt(scan.open(s, &opts))),
        })?;
        Ok(Steps::new(slot))
    }

    /// The value of `key`, or `None`, read with `opts`.
    fn value(&self, py: Python<'_>, key: &[u8], opts: &ReadOptions) -> PyResult<Option<Vec<u8>>> {
        match &self.view {
            View::Live => self.handle.db().call(py, |db| db.get_opt(key, opts)),
            View::Snapshot(snap) => snap.call(py, |s| s.get_opt(key, opts)),
        }
    }

    /// The scan `items`, `keys`, `values` and `entries` cover: a prefix, or a range.
    fn scan_of<'a>(
        start: Option<Bytes<'a>>,
        end: Option<Bytes<'a>>,
        prefix: Option<Bytes<'a>>,
    ) -> PyResult<Scan<'a>> {
        match prefix {
            Some(_) if start.is_some() || end.is_some() => {
                Err(PyValueError::new_err("give a prefix or a range, not both"))
            }
            Some(p) => Ok(Scan::Prefix(p)),
            None => Ok(Scan::Range { start, end }),
        }
    }
}

#[pymethods]
impl Reader {
    /// The value of `key`, or `default` (`None` unless given). With `fill_cache=False`
    /// the table blocks it reads from disk do not enter the block cache.
    #[pyo3(signature = (key, default = None, *, fill_cache = true))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: Bytes<'_>,
        default: Option<Bound<'py, PyAny>>,
        fill_cache: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = ReadOptions::default().fill_cache(fill_cache);
        Ok(match self.value(py, key.as_ref(), &opts)? {
            Some(v) => PyBytes::new(py, &v).into_any(),
            None => default.unwrap_or_else(|| py.None().into_bound(py)),
        })
    }

    /// The values of `keys` (an iterable of bytes-like keys), in order, `None` where a key
    /// has none; all read at one view, the values of one value file read together.
    fn multi_get<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Option<Bound<'py, PyBytes>>>> {
        if keys.is_instance_of::<pyo3::types::PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "multi_get takes an iterable of bytes-like keys, not a str",
            ));
        }
        let owned: Vec<Vec<u8>> = keys
            .try_iter()?
            .map(|k| {
                let k = k?;
                let bytes: Bytes<'_> = k.extract()?;
                Ok(bytes.as_ref().to_vec())
            })
            .collect::<PyResult<_>>()?;
        let keys: Vec<&[u8]> = owned.iter().map(AsRef::as_ref).collect();
        let values = match &self.view {
            View::Live => self.handle.db().call(py, |db| db.multi_get(&keys)),
            View::Snapshot(snap) => snap.call(py, |s| s.multi_get(&keys)),
        }?;
        Ok(values
            .into_iter()
            .map(|v| v.map(|v| PyBytes::new(py, &v)))
            .collect())
    }

    /// `reader[key]`: the value of `key`; `KeyError` if it has none.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let k: Bytes<'_> = key.extract()?;
        match self.value(py, k.as_ref(), &ReadOptions::default())? {
            Some(v) => Ok(PyBytes::new(py, &v)),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    /// `key in reader`: whether `key` has a value (a separated value is not read).
    fn __contains__(&self, py: Python<'_>, key: Bytes<'_>) -> PyResult<bool> {
        match &self.view {
            View::Live => self.handle.db().call(py, |db| db.contains_key(&key)),
            View::Snapshot(snap) => snap.call(py, |s| s.contains_key(&key)),
        }
    }

    /// `iter(reader)`: every key, in order (as `keys()`).
    fn __iter__(&self, py: Python<'_>) -> PyResult<PyKeyIterator> {
        let all = Scan::Range {
            start: None,
            end: None,
        };
        let walk = (all, ReadOptions::default());
        Ok(self.walk(py, walk, false, |it| it.into_keys())?.into())
    }

    /// Every `(key, value)` pair in key order (or in reverse).
    #[pyo3(signature = (reverse = false, *, fill_cache = true, prefetch = true))]
    fn iter(
        &self,
        py: Python<'_>,
        reverse: bool,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyItemIterator> {
        let all = Scan::Range {
            start: None,
            end: None,
        };
        let walk = (all, read_options(fill_cache, prefetch));
        Ok(self.walk(py, walk, reverse, |it| it)?.into())
    }

    /// The pairs from `start` (inclusive) to `end` (exclusive); `None` is unbounded.
    #[pyo3(signature = (start = None, end = None, reverse = false, *, fill_cache = true, prefetch = true))]
    fn range(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyItemIterator> {
        let walk = (
            Scan::Range { start, end },
            read_options(fill_cache, prefetch),
        );
        Ok(self.walk(py, walk, reverse, |it| it)?.into())
    }

    /// The pairs whose keys start with `prefix`.
    #[pyo3(signature = (prefix, reverse = false, *, fill_cache = true, prefetch = true))]
    fn prefix(
        &self,
        py: Python<'_>,
        prefix: Bytes<'_>,
        reverse: bool,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyItemIterator> {
        let walk = (Scan::Prefix(prefix), read_options(fill_cache, prefetch));
        Ok(self.walk(py, walk, reverse, |it| it)?.into())
    }

    /// The pairs from `start` (inclusive) to `end` (exclusive), or those whose keys start
    /// with `prefix`.
    #[pyo3(signature = (
        start = None, end = None, reverse = false, prefix = None, *, fill_cache = true, prefetch = true
    ))]
    #[allow(clippy::too_many_arguments)]
    fn items(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        prefix: Option<Bytes<'_>>,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyItemIterator> {
        let scan = (
            Self::scan_of(start, end, prefix)?,
            read_options(fill_cache, prefetch),
        );
        Ok(self.walk(py, scan, reverse, |it| it)?.into())
    }

    /// The keys from `start` (inclusive) to `end` (exclusive), or those starting with
    /// `prefix`, without reading any value file.
    #[pyo3(signature = (
        start = None, end = None, reverse = false, prefix = None, *, fill_cache = true, prefetch = true
    ))]
    #[allow(clippy::too_many_arguments)]
    fn keys(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        prefix: Option<Bytes<'_>>,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyKeyIterator> {
        let scan = (
            Self::scan_of(start, end, prefix)?,
            read_options(fill_cache, prefetch),
        );
        Ok(self.walk(py, scan, reverse, |it| it.into_keys())?.into())
    }

    /// The values of the keys from `start` (inclusive) to `end` (exclusive), or of those
    /// starting with `prefix`, in key order.
    #[pyo3(signature = (
        start = None, end = None, reverse = false, prefix = None, *, fill_cache = true, prefetch = true
    ))]
    #[allow(clippy::too_many_arguments)]
    fn values(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        prefix: Option<Bytes<'_>>,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyValueIterator> {
        let scan = (
            Self::scan_of(start, end, prefix)?,
            read_options(fill_cache, prefetch),
        );
        Ok(self.walk(py, scan, reverse, |it| it)?.into())
    }

    /// Entries (`key`, and `value()` read when called) from `start` (inclusive) to `end`
    /// (exclusive), or those starting with `prefix`.
    #[pyo3(signature = (
        start = None, end = None, reverse = false, prefix = None, *, fill_cache = true, prefetch = true
    ))]
    #[allow(clippy::too_many_arguments)]
    fn entries(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
        reverse: bool,
        prefix: Option<Bytes<'_>>,
        fill_cache: bool,
        prefetch: bool,
    ) -> PyResult<PyEntryIterator> {
        let scan = (
            Self::scan_of(start, end, prefix)?,
            read_options(fill_cache, prefetch),
        );
        let handle = Arc::clone(&self.handle);
        let entries =
            move |it: twain::DbIterator| EntryCursor::new(it.into_entries(), Arc::clone(&handle));
        Ok(self.walk(py, scan, reverse, entries)?.into())
    }
}

/// The engine's read options from a call's keywords.
fn read_options(fill_cache: bool, prefetch: bool) -> ReadOptions {
    ReadOptions::default()
        .fill_cache(fill_cache)
        .prefetch(prefetch)
}

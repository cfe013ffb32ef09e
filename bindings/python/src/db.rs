//! `twaindb.Db`: opening, writing, maintenance and closing; reads come from `Reader`.

use crate::batch::PyWriteBatch;
use crate::convert::{self, Bytes};
use crate::errors::Failure;
use crate::handle::Handle;
use crate::reader::Reader;
use crate::snapshot::PySnapshot;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use std::path::PathBuf;
use std::sync::Arc;
use twain::WriteOptions;

/// An open database, and a mapping of `bytes` keys to `bytes` values (reads from
/// `Reader`; `db[key] = value`, `del db[key]` here). Thread-safe: share it between
/// threads; every engine call runs with the GIL released. Closed by `close()`, on leaving
/// a `with` block, or when it and what holds its handle (snapshots, entry iterators,
/// batches from `write_batch`) are garbage.
#[pyclass(name = "Db", module = "twaindb", extends = Reader, frozen)]
pub struct PyDb {
    handle: Arc<Handle>,
    path: PathBuf,
}

#[pymethods]
impl PyDb {
    /// Opens (by default creating) the database in directory `path`. Keyword arguments
    /// set engine options by name, e.g. `memtable_size="8M"`, `create_if_missing=False`.
    #[new]
    #[pyo3(signature = (path, **options))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyClassInitializer<PyDb>> {
        let opts = convert::options(options)?;
        let db = py
            .detach(|| twain::Db::open(&path, opts))
            .map_err(Failure::from)?;
        let handle = Arc::new(Handle::new(db));
        let reader = Reader::live(Arc::clone(&handle));
        Ok(PyClassInitializer::from(reader).add_subclass(PyDb { handle, path }))
    }

    /// Sets `key` to `value`; with `sync`, durable when it returns; with `expires_at`
    /// (milliseconds since the Unix epoch, by `now_millis()`), the pair expires then: reads
    /// no longer see the key from that moment on.
    #[pyo3(signature = (key, value, sync = false, expires_at = None))]
    fn put(
        &self,
        py: Python<'_>,
        key: Bytes<'_>,
        value: Bytes<'_>,
        sync: bool,
        expires_at: Option<u64>,
    ) -> PyResult<()> {
        let opts = WriteOptions::default().sync(sync);
        self.handle.db().call(py, |db| match expires_at {
            Some(at) => db.put_with_expiry_opt(&key, &value, at, &opts),
            None => db.put_opt(&key, &value, &opts),
        })
    }

    /// When `key` expires, in milliseconds since the Unix epoch; `None` if it never does.
    /// `KeyError` if the key has no value (missing or expired).
    fn expiry(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        let k: Bytes<'_> = key.extract()?;
        match self.handle.db().call(py, |db| db.expiry(&k))? {
            twain::KeyExpiry::Missing => Err(PyKeyError::new_err(key.clone().unbind())),
            twain::KeyExpiry::Never => Ok(None),
            twain::KeyExpiry::At(at) => Ok(Some(at)),
        }
    }

    /// The database's clock, which expiry is judged by: milliseconds since the Unix epoch.
    fn now_millis(&self, py: Python<'_>) -> PyResult<u64> {
        self.handle.db().call(py, |db| Ok(db.now_millis()))
    }

    /// Deletes `key` (deleting a missing key is not an error).
    #[pyo3(signature = (key, sync = false))]
    fn delete(&self, py: Python<'_>, key: Bytes<'_>, sync: bool) -> PyResult<()> {
        let opts = WriteOptions::default().sync(sync);
        self.handle.db().call(py, |db| db.delete_opt(&key, &opts))
    }

    /// Deletes every key from `start` (included) to `end` (excluded). Costs one write
    /// however many keys the range holds; `start > end` raises `ValueError`.
    #[pyo3(signature = (start, end, sync = false))]
    fn delete_range(
        &self,
        py: Python<'_>,
        start: Bytes<'_>,
        end: Bytes<'_>,
        sync: bool,
    ) -> PyResult<()> {
        let opts = WriteOptions::default().sync(sync);
        self.handle
            .db()
            .call(py, |db| db.delete_range_opt(&start, &end, &opts))
    }

    /// Applies the batch atomically; the batch is left as it was.
    #[pyo3(signature = (batch, sync = false))]
    fn write(&self, py: Python<'_>, batch: PyRef<'_, PyWriteBatch>, sync: bool) -> PyResult<()> {
        let batch = batch.to_engine();
        let opts = WriteOptions::default().sync(sync);
        self.handle.db().call(py, |db| db.write(batch, &opts))
    }

    /// `db[key] = value`: sets `key` to `value` (not synced, as `put`).
    fn __setitem__(&self, py: Python<'_>, key: Bytes<'_>, value: Bytes<'_>) -> PyResult<()> {
        self.put(py, key, value, false, None)
    }

    /// `del db[key]`: deletes `key` (not synced, as `delete`). Like `delete`, and unlike
    /// a dict, a missing key is no error: knowing would cost a read.
    fn __delitem__(&self, py: Python<'_>, key: Bytes<'_>) -> PyResult<()> {
        self.delete(py, key, false)
    }

    /// An empty batch that `with db.write_batch() as batch:` writes to this database
    /// when the block ends normally (with `sync`, durable then), and discards when it
    /// ends by an exception.
    #[pyo3(signature = (sync = false))]
    fn write_batch(&self, sync: bool) -> PyWriteBatch {
        PyWriteBatch::bound(Arc::clone(&self.handle), sync)
    }

    /// Makes every write so far durable.
    fn sync(&self, py: Python<'_>) -> PyResult<()> {
        self.handle.db().call(py, |db| db.sync())
    }

    /// A consistent read view of the database as it is now.
    fn snapshot(&self, py: Python<'_>) -> PyResult<Py<PySnapshot>> {
        PySnapshot::take(py, Arc::clone(&self.handle))
    }

    /// Writes the memtable to a table file.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.handle.db().call(py, |db| db.flush())
    }

    /// Flushes the memtable, then compacts the tables of every level that hold keys in
    /// `[start, end]` (`None`: unbounded) into one sorted level.
    #[pyo3(signature = (start = None, end = None))]
    fn compact_range(
        &self,
        py: Python<'_>,
        start: Option<Bytes<'_>>,
        end: Option<Bytes<'_>>,
    ) -> PyResult<()> {
        let (start, end) = (start.as_ref(), end.as_ref());
        self.handle.db().call(py, |db| {
            db.compact_range(start.map(AsRef::as_ref), end.map(AsRef::as_ref))
        })
    }

    /// Runs value GC until no value file is below `gc_threshold`; returns how many files
    /// it collected.
    fn gc(&self, py: Python<'_>) -> PyResult<u64> {
        self.handle.db().call(py, |db| db.gc())
    }

    /// The engine's statistics, as `twain stats --json` prints them.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let json = self.handle.db().call(py, |db| Ok(db.stats()?.to_json()))?;
        LOADS.import(py, "json", "loads")?.call1((json,))
    }

    /// Closes the database: snapshots and iterators are released, and the log is synced.
    /// Later calls raise `ClosedError`; closing again does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        Ok(py.detach(|| self.handle.close())?)
    }

    /// Whether the database was closed.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.handle.db().is_released())
    }

    /// The database directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.close(py)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let state = if self.closed(py) { "closed" } else { "open" };
        format!("<twaindb.Db {:?} {state}>", self.path)
    }
}

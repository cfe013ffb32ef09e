//! `twaindb.WriteBatch`: puts and deletes applied atomically by `Db.write`, or at the end of
//! a `with db.write_batch() as batch:` block.

use crate::convert::Bytes;
use crate::handle::Handle;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;
use twain::WriteOptions;

/// Puts and deletes applied atomically, in order, by `Db.write` (a later operation on
/// the same key wins). Writing does not empty the batch. A batch from
/// `Db.write_batch(sync)` is also a context manager: the `with` block writes it to that
/// database when it ends normally and discards it when it ends by an exception. Not
/// meant to be filled from several threads at once (each call is safe; their order is
/// not).
#[pyclass(name = "WriteBatch", module = "twaindb")]
#[derive(Default)]
pub struct PyWriteBatch {
    batch: twain::WriteBatch,
    /// Where the `with` block writes the batch, for a batch from `Db.write_batch`.
    target: Option<Target>,
}

/// The database a `with` block writes a batch to, and how.
struct Target {
    handle: Arc<Handle>,
    sync: bool,
}

impl PyWriteBatch {
    /// An empty batch that a `with` block writes to `handle`'s database.
    pub fn bound(handle: Arc<Handle>, sync: bool) -> PyWriteBatch {
        PyWriteBatch {
            batch: twain::WriteBatch::default(),
            target: Some(Target { handle, sync }),
        }
    }

    /// A copy of the operations, for the engine (which consumes the batch it writes).
    pub fn to_engine(&self) -> twain::WriteBatch {
        self.batch.clone()
    }
}

#[pymethods]
impl PyWriteBatch {
    #[new]
    fn new() -> PyWriteBatch {
        PyWriteBatch::default()
    }

    /// Adds a put of `key` to `value`, which expires at `expires_at` (milliseconds since
    /// the Unix epoch) if given.
    #[pyo3(signature = (key, value, expires_at = None))]
    fn put(&mut self, key: Bytes<'_>, value: Bytes<'_>, expires_at: Option<u64>) {
        match expires_at {
            Some(at) => self.batch.put_with_expiry(key, value, at),
            None => self.batch.put(key, value),
        };
    }

    /// Adds a delete of `key`.
    fn delete(&mut self, key: Bytes<'_>) {
        self.batch.delete(key);
    }

    /// Adds a deletion of every key from `start` (included) to `end` (excluded).
    fn delete_range(&mut self, start: Bytes<'_>, end: Bytes<'_>) {
        self.batch.delete_range(start, end);
    }

    /// Removes every operation.
    fn clear(&mut self) {
        self.batch.clear();
    }

    fn __len__(&self) -> usize {
        self.batch.len()
    }

    fn __enter__(slf: PyRefMut<'_, Self>) -> PyResult<PyRefMut<'_, Self>> {
        if slf.target.is_none() {
            return Err(PyTypeError::new_err(
                "this WriteBatch belongs to no database: use `with db.write_batch() as batch:`, \
                 or db.write(batch)",
            ));
        }
        Ok(slf)
    }

    /// Ends the `with` block: writes the batch if the block raised nothing, and empties
    /// it either way (also when the write fails, whose error is raised).
    #[pyo3(signature = (*exc))]
    fn __exit__(&mut self, py: Python<'_>, exc: &Bound<'_, PyTuple>) -> PyResult<()> {
        let batch = std::mem::take(&mut self.batch);
        let raised = match exc.get_item(0) {
            Ok(exc_type) => !exc_type.is_none(),
            Err(_) => false,
        };
        match &self.target {
            Some(Target { handle, sync }) if !raised => {
                let opts = WriteOptions::default().sync(*sync);
                handle.db().call(py, |db| db.write(batch, &opts))
            }
            _ => Ok(()),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<twaindb.WriteBatch of {} operations, {} bytes>",
            self.batch.len(),
            self.batch.payload_bytes()
        )
    }
}

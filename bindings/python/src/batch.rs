//! `twain.WriteBatch`: puts and deletes applied atomically by `Db.write`.

use crate::convert::Bytes;
use pyo3::prelude::*;

/// Puts and deletes applied atomically, in order, by `Db.write` (a later operation on
/// the same key wins). Writing does not empty the batch. Not meant to be filled from
/// several threads at once (each call is safe; their order is not).
#[pyclass(name = "WriteBatch", module = "twain")]
#[derive(Default)]
pub struct PyWriteBatch {
    batch: twain::WriteBatch,
}

impl PyWriteBatch {
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

    /// Adds a put of `key` to `value`.
    fn put(&mut self, key: Bytes<'_>, value: Bytes<'_>) {
        self.batch.put(key, value);
    }

    /// Adds a delete of `key`.
    fn delete(&mut self, key: Bytes<'_>) {
        self.batch.delete(key);
    }

    /// Removes every operation.
    fn clear(&mut self) {
        self.batch.clear();
    }

    fn __len__(&self) -> usize {
        self.batch.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<twain.WriteBatch of {} operations, {} bytes>",
            self.batch.len(),
            self.batch.payload_bytes()
        )
    }
}

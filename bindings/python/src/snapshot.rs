//! `twaindb.Snapshot`: a consistent read view, released by `close()` (or on leaving a
//! `with` block).

use crate::handle::{Handle, Slot};
use crate::reader::Reader;
use pyo3::prelude::*;
use std::sync::Arc;

/// A read view of the database at one moment; reads come from `Reader`. Holding it keeps
/// the versions it can see from being compacted away, so close it when done. Thread-safe.
#[pyclass(name = "Snapshot", module = "twaindb", extends = Reader, frozen)]
pub struct PySnapshot {
    slot: Arc<Slot<twain::Snapshot>>,
}

impl PySnapshot {
    /// Takes a snapshot of `handle`'s database.
    pub fn take(py: Python<'_>, handle: Arc<Handle>) -> PyResult<Py<PySnapshot>> {
        let slot = py.detach(|| handle.db().with(|db| handle.adopt(db.snapshot())))?;
        let reader = Reader::snapshot(handle, Arc::clone(&slot));
        Py::new(
            py,
            PyClassInitializer::from(reader).add_subclass(PySnapshot { slot }),
        )
    }
}

#[pymethods]
impl PySnapshot {
    /// Releases the snapshot; later reads through it raise `ClosedError`. Idempotent.
    fn close(&self, py: Python<'_>) {
        py.detach(|| drop(self.slot.take("snapshot")));
    }

    /// Whether the snapshot (or its database) was closed.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.slot.is_released())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) {
        self.close(py);
    }
}

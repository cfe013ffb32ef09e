//! The native module `twaindb._twaindb` of the `twaindb` Python package: PyO3 bindings
//! for the twain storage engine. The package re-exports everything from here.
//!
//! - `handle`: who owns the engine objects handed to Python, and closing.
//! - `reader`, `db`, `snapshot`, `iter`, `batch`: the Python classes.
//! - `errors`: the exception classes; `convert`: arguments and options.
//!
//! Every engine call runs with the GIL released; no engine error or panic crosses into
//! Python other than as an exception.
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod batch;
mod convert;
mod db;
mod errors;
mod handle;
mod iter;
mod reader;
mod snapshot;

use pyo3::prelude::*;

#[pymodule]
fn _twaindb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<reader::Reader>()?;
    m.add_class::<db::PyDb>()?;
    m.add_class::<snapshot::PySnapshot>()?;
    m.add_class::<iter::PyItemIterator>()?;
    m.add_class::<iter::PyKeyIterator>()?;
    m.add_class::<iter::PyValueIterator>()?;
    m.add_class::<iter::PyEntryIterator>()?;
    m.add_class::<iter::PyEntry>()?;
    m.add_class::<batch::PyWriteBatch>()?;
    for class in errors::Exceptions::get(py)?.all() {
        let class = class.bind(py);
        m.add(class.name()?, class)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

//! The Python exception classes and the mapping of engine errors onto them.
//!
//! Every class derives from `twaindb.Error`; some also derive from the built-in class a
//! Python user would catch for the same trouble (`OSError`, `ValueError`, ...). PyO3's
//! `create_exception!` allows one base only, so the classes are made at import time by
//! calling `type(name, bases, namespace)`, once per interpreter.

use pyo3::exceptions::{
    PyException, PyFileExistsError, PyFileNotFoundError, PyOSError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// Why a call failed, before it becomes a Python exception (which needs the interpreter:
/// failures are made while it is released).
#[derive(Debug)]
pub enum Failure {
    /// The engine reported an error.
    Engine(twain::Error),
    /// The database, snapshot or iterator was closed; the text names which.
    Closed(&'static str),
}

impl From<twain::Error> for Failure {
    fn from(e: twain::Error) -> Failure {
        Failure::Engine(e)
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        Python::attach(|py| to_pyerr(py, f))
    }
}

/// The exception classes of the `twaindb` module.
pub struct Exceptions {
    /// `twaindb.Error`, the base of the others.
    error: Py<PyType>,
    corruption: Py<PyType>,
    io: Py<PyType>,
    invalid_argument: Py<PyType>,
    not_supported: Py<PyType>,
    read_only: Py<PyType>,
    locked: Py<PyType>,
    not_found: Py<PyType>,
    already_exists: Py<PyType>,
    closed: Py<PyType>,
}

static EXCEPTIONS: PyOnceLock<Exceptions> = PyOnceLock::new();

impl Exceptions {
    /// The classes, made on first use.
    pub fn get(py: Python<'_>) -> PyResult<&Exceptions> {
        EXCEPTIONS.get_or_try_init(py, || Exceptions::create(py))
    }

    fn create(py: Python<'_>) -> PyResult<Exceptions> {
        let error = new_class(
            py,
            "Error",
            &[py.get_type::<PyException>()],
            "Base class of every error reported by twain.",
        )?;
        let sub = |name: &str, also: Option<Bound<'_, PyType>>, doc: &str| {
            let mut bases = vec![error.bind(py).clone()];
            bases.extend(also);
            new_class(py, name, &bases, doc)
        };
        Ok(Exceptions {
            corruption: sub(
                "CorruptionError",
                None,
                "Stored bytes failed a check; the message names the file and the offset.",
            )?,
            io: sub(
                "IoError",
                Some(py.get_type::<PyOSError>()),
                "An operating-system I/O call failed.",
            )?,
            invalid_argument: sub(
                "InvalidArgumentError",
                Some(py.get_type::<PyValueError>()),
                "An argument the engine does not accept: an unknown option, a key too large, ...",
            )?,
            not_supported: sub("NotSupportedError", None, "The feature is not built yet.")?,
            read_only: sub(
                "ReadOnlyError",
                None,
                "An earlier write or sync failed: the database refuses writes until reopened.",
            )?,
            locked: sub(
                "LockedError",
                None,
                "Another process, or another Db in this one, has the database open.",
            )?,
            not_found: sub(
                "NotFoundError",
                Some(py.get_type::<PyFileNotFoundError>()),
                "No database at the path, and create_if_missing is off.",
            )?,
            already_exists: sub(
                "AlreadyExistsError",
                Some(py.get_type::<PyFileExistsError>()),
                "A database exists at the path, and error_if_exists is on.",
            )?,
            closed: sub(
                "ClosedError",
                None,
                "The database, snapshot or iterator was used after it was closed.",
            )?,
            error,
        })
    }

    /// Every class, for adding to the module.
    pub fn all(&self) -> [&Py<PyType>; 10] {
        [
            &self.error,
            &self.corruption,
            &self.io,
            &self.invalid_argument,
            &self.not_supported,
            &self.read_only,
            &self.locked,
            &self.not_found,
            &self.already_exists,
            &self.closed,
        ]
    }

    fn class_of(&self, e: &twain::Error) -> &Py<PyType> {
        use twain::Error as E;
        match e {
            E::Io { .. } => &self.io,
            E::Corruption { .. } => &self.corruption,
            E::InvalidArgument(_) => &self.invalid_argument,
            E::NotSupported(_) => &self.not_supported,
            E::ReadOnly(_) => &self.read_only,
            E::Locked(_) => &self.locked,
            E::NotFound(_) => &self.not_found,
            E::AlreadyExists(_) => &self.already_exists,
            _ => &self.error,
        }
    }
}

/// `type(name, bases, {"__module__": "twaindb", "__doc__": doc})`.
fn new_class(
    py: Python<'_>,
    name: &str,
    bases: &[Bound<'_, PyType>],
    doc: &str,
) -> PyResult<Py<PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "twaindb")?;
    namespace.set_item("__doc__", doc)?;
    let class = py
        .get_type::<PyType>()
        .call1((name, PyTuple::new(py, bases)?, namespace))?;
    Ok(class.cast_into::<PyType>()?.unbind())
}

/// The Python exception for a failure, carrying the engine's message.
pub fn to_pyerr(py: Python<'_>, f: Failure) -> PyErr {
    let ex = match Exceptions::get(py) {
        Ok(ex) => ex,
        Err(e) => return e,
    };
    let (class, message) = match f {
        Failure::Closed(what) => (&ex.closed, format!("{what} is closed")),
        Failure::Engine(e) => (ex.class_of(&e), e.to_string()),
    };
    PyErr::from_type(class.bind(py).clone(), message)
}

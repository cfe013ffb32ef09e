//! Conversions at the boundary: keys and values from Python, engine options by name.

use crate::errors::Failure;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyMemoryView, PyString};
use std::borrow::Cow;

/// A key, value, bound or prefix from Python: a bytes-like object. `bytes` is borrowed;
/// `bytearray` and other C-contiguous buffers (`memoryview`, `array.array`, ...) are
/// copied while the interpreter is attached, so a buffer another thread changes cannot
/// change under an engine call. A `str` is refused with a `TypeError` that says to
/// encode it (keys and values are bytes, and reads return bytes); so is anything that
/// is not a buffer, or a buffer that is not C-contiguous.
///
/// The buffer protocol is reached through `memoryview`: the `abi3` wheel targets the
/// stable ABI of CPython 3.8, which has no `PyObject_GetBuffer` (3.11 added it).
#[derive(Debug)]
pub struct Bytes<'a>(Cow<'a, [u8]>);

impl AsRef<[u8]> for Bytes<'_> {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Bytes<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyBytes>() {
            let b: &'a [u8] = FromPyObject::extract(obj)?;
            return Ok(Bytes(Cow::Borrowed(b)));
        }
        if let Ok(array) = obj.cast::<PyByteArray>() {
            return Ok(Bytes(Cow::Owned(array.to_vec())));
        }
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "expected a bytes-like object, got str: keys and values are bytes, \
                 so encode it first (e.g. s.encode())",
            ));
        }
        let view = match PyMemoryView::from(&obj) {
            Ok(view) => view,
            // Not a buffer (a released memoryview raises its own ValueError).
            Err(e) if e.is_instance_of::<PyTypeError>(obj.py()) => {
                let type_name = obj.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "expected a bytes-like object (bytes, bytearray, memoryview), got {type_name}"
                )));
            }
            Err(e) => return Err(e),
        };
        if !view.getattr("c_contiguous")?.is_truthy()? {
            return Err(PyTypeError::new_err(
                "expected a C-contiguous buffer, got a non-contiguous one: \
                 copy it with bytes() first",
            ));
        }
        let copy = view.call_method0("tobytes")?;
        let copy = copy.cast::<PyBytes>()?;
        Ok(Bytes(Cow::Owned(copy.as_bytes().to_vec())))
    }
}

/// A `(key, value)` pair as Python `bytes`.
pub fn pair<'py>(
    py: Python<'py>,
    (key, value): twain::KvPair,
) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>) {
    (PyBytes::new(py, &key), PyBytes::new(py, &value))
}

/// Engine options from `Db(path, **options)`: each value is turned into the string
/// `Options::set` parses (`True` into `"true"`, `8 << 20` into `"8388608"`, `"8M"` kept).
pub fn options(given: Option<&Bound<'_, PyDict>>) -> PyResult<twain::Options> {
    let mut opts = twain::Options::default();
    for (name, value) in given.into_iter().flat_map(|d| d.iter()) {
        let name: Cow<'_, str> = name.extract()?;
        opts.set(&name, &option_value(&value)?)
            .map_err(Failure::from)?;
    }
    Ok(opts)
}

fn option_value(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(if flag.is_true() { "true" } else { "false" }.to_owned());
    }
    Ok(value.str()?.to_cow()?.into_owned())
}

//! Conversions at the boundary: keys and values from Python, engine options by name.

use crate::errors::Failure;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyString};
use std::borrow::Cow;

/// A key, value or prefix from Python: `bytes` (borrowed, not copied) or `str` (encoded
/// as UTF-8). Anything else is a `TypeError`.
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
        if obj.is_instance_of::<PyString>() {
            let s: Cow<'a, str> = FromPyObject::extract(obj)?;
            return Ok(Bytes(match s {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            }));
        }
        let type_name = obj.get_type().name()?;
        Err(PyTypeError::new_err(format!(
            "expected bytes or str, got {type_name}"
        )))
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

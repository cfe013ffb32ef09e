//! Memory handed to C: copies made with `malloc`, freed by [`twain_free`]; and the static
//! version string.

use crate::error::Failure;
use std::ffi::{c_char, c_void};

/// Frees a buffer twain returned: a value from `twain_get` or `twain_snapshot_get`, a
/// message from an `errmsg` output, the text from `twain_stats_json`. NULL is allowed (it
/// does nothing). Never pass it anything else, nor the same buffer twice; objects
/// (databases, batches, ...) have their own free functions.
///
/// # Safety
/// `ptr` is NULL or a buffer twain returned and not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_free(ptr: *mut c_void) {
    // SAFETY: every buffer twain returns comes from `malloc` (see `malloc_copy`).
    unsafe { libc::free(ptr) }
}

/// The version of twain this library was built from, e.g. "0.1.0". A static string:
/// never free it. Cannot fail.
#[unsafe(no_mangle)]
pub extern "C" fn twain_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A `malloc`ed copy of `bytes` for the caller to free with `twain_free`. Never NULL on
/// success, also for an empty slice (so NULL can mean "no value").
pub(crate) fn malloc_copy(bytes: &[u8]) -> Result<*mut u8, Failure> {
    // SAFETY: `malloc` with a non-zero size has no precondition.
    let p: *mut u8 = unsafe { libc::malloc(bytes.len().max(1)) }.cast();
    if p.is_null() {
        return Err(Failure::out_of_memory(&format!(
            "a buffer of {} bytes",
            bytes.len()
        )));
    }
    // SAFETY: `p` has room for `bytes.len()` bytes and does not overlap `bytes`.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    Ok(p)
}

/// A `malloc`ed NUL-terminated copy of `text` (an interior NUL written as `\0`), or NULL
/// when memory is short.
pub(crate) fn malloc_cstring(text: &str) -> *mut c_char {
    let mut bytes = text.replace('\0', "\\0").into_bytes();
    bytes.push(0);
    malloc_copy(&bytes).map_or(std::ptr::null_mut(), |p| p.cast())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn copies_are_exact_and_never_null() {
        let p = malloc_copy(b"").unwrap();
        assert!(!p.is_null());
        unsafe { twain_free(p.cast()) };
        let p = malloc_copy(b"abc").unwrap();
        assert_eq!(unsafe { std::slice::from_raw_parts(p, 3) }, b"abc");
        unsafe { twain_free(p.cast()) };
        unsafe { twain_free(std::ptr::null_mut()) };
    }

    #[test]
    fn the_version_is_the_crate_version() {
        let v = unsafe { CStr::from_ptr(twain_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}

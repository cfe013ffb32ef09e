//! Argument checks shared by the entry points: each turns a raw C argument into a Rust
//! value or a [`Failure`] naming the argument, so that no call dereferences a NULL pointer
//! or builds a slice longer than twain accepts.

use crate::error::Failure;
use std::ffi::{CStr, c_char};
use std::path::PathBuf;
use std::ptr::NonNull;

/// The bytes `ptr[0..len]`, at most `limit` of them. NULL with a zero length is the empty
/// slice; NULL with a non-zero length, or a length above `limit`, is refused.
///
/// # Safety
/// A non-NULL `ptr` points to `len` readable bytes that stay unchanged for `'a`.
pub(crate) unsafe fn bytes<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
    limit: usize,
) -> Result<&'a [u8], Failure> {
    if len > limit {
        return Err(Failure::invalid(format!(
            "{what} of {len} bytes exceeds the limit of {limit}"
        )));
    }
    if ptr.is_null() {
        return match len {
            0 => Ok(&[]),
            _ => Err(Failure::invalid(format!(
                "{what} is NULL with a length of {len}"
            ))),
        };
    }
    // SAFETY: the caller promises `len` readable bytes; `len <= limit <= isize::MAX`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A key, at most `twain::MAX_KEY_SIZE` bytes.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn key<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Failure> {
    // SAFETY: forwarded.
    unsafe { bytes(ptr, len, what, twain::MAX_KEY_SIZE) }
}

/// A value, at most `twain::MAX_VALUE_SIZE` bytes.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn value<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], Failure> {
    // SAFETY: forwarded.
    unsafe { bytes(ptr, len, "value", twain::MAX_VALUE_SIZE) }
}

/// An optional range bound: NULL with a zero length is "no bound".
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn bound<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<Option<&'a [u8]>, Failure> {
    if ptr.is_null() && len == 0 {
        return Ok(None);
    }
    // SAFETY: forwarded.
    unsafe { key(ptr, len, what) }.map(Some)
}

/// A NUL-terminated UTF-8 string.
///
/// # Safety
/// A non-NULL `ptr` points to a NUL-terminated string that stays unchanged for `'a`.
pub(crate) unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::invalid(format!("{what} is NULL")));
    }
    // SAFETY: the caller promises a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(ptr) };
    s.to_str().map_err(|e| {
        Failure::invalid(format!(
            "{what} {:?} is not UTF-8 ({e})",
            s.to_string_lossy()
        ))
    })
}

/// A path: any bytes but NUL on Unix, UTF-8 elsewhere; not empty.
///
/// # Safety
/// As [`text`].
pub(crate) unsafe fn path(ptr: *const c_char) -> Result<PathBuf, Failure> {
    if ptr.is_null() {
        return Err(Failure::invalid("path is NULL"));
    }
    // SAFETY: the caller promises a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    if bytes.is_empty() {
        return Err(Failure::invalid("path is empty"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        // SAFETY: as above.
        unsafe { text(ptr, "path") }.map(PathBuf::from)
    }
}

/// The object behind a `const` handle.
///
/// # Safety
/// A non-NULL `ptr` points to a live `T` not mutated for `'a`.
pub(crate) unsafe fn object<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller's promise.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::invalid(format!("{what} is NULL")))
}

/// The object behind a mutable handle.
///
/// # Safety
/// A non-NULL `ptr` points to a live `T` not otherwise accessed for `'a`.
pub(crate) unsafe fn object_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's promise.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure::invalid(format!("{what} is NULL")))
}

/// Where a function writes an output: a non-NULL pointer from the caller.
pub(crate) struct Out<T>(NonNull<T>);

impl<T> Out<T> {
    /// Writes `v` (without reading or dropping what the storage held, which may be
    /// uninitialized).
    pub fn set(&self, v: T) {
        // SAFETY: `output` made this from a pointer its caller promised writable.
        unsafe { self.0.as_ptr().write(v) }
    }
}

/// Storage for an output, checked for NULL before the call does any work.
///
/// # Safety
/// A non-NULL `ptr` is valid for writes of one `T` while the `Out` is used.
pub(crate) unsafe fn output<T>(ptr: *mut T, what: &str) -> Result<Out<T>, Failure> {
    NonNull::new(ptr)
        .map(Out)
        .ok_or_else(|| Failure::invalid(format!("{what} (an output) is NULL")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TWAIN_INVALID_ARGUMENT;

    fn message<T>(r: Result<T, Failure>) -> String {
        let Err(f) = r else {
            panic!("accepted");
        };
        assert_eq!(f.code, TWAIN_INVALID_ARGUMENT);
        f.message
    }

    #[test]
    fn null_with_a_length_is_refused_and_without_is_empty() {
        let m = message(unsafe { bytes(std::ptr::null(), 3, "key", 10) });
        assert_eq!(m, "key is NULL with a length of 3");
        assert_eq!(
            unsafe { bytes(std::ptr::null(), 0, "key", 10) }.unwrap(),
            b""
        );
    }

    #[test]
    fn lengths_above_the_limits_are_refused_before_reading() {
        // A dangling pointer with a huge length: refused without a read.
        let p = std::ptr::NonNull::<u8>::dangling().as_ptr();
        let m = message(unsafe { key(p, twain::MAX_KEY_SIZE + 1, "key") });
        assert!(m.contains("exceeds the limit of 65536"), "{m}");
        let m = message(unsafe { value(p, usize::MAX) });
        assert!(m.contains("exceeds the limit"), "{m}");
        let k = vec![7u8; twain::MAX_KEY_SIZE];
        assert_eq!(unsafe { key(k.as_ptr(), k.len(), "key") }.unwrap(), &k[..]);
    }

    #[test]
    fn bounds_may_be_absent_or_empty() {
        assert_eq!(
            unsafe { bound(std::ptr::null(), 0, "lower") }.unwrap(),
            None
        );
        let e = b"";
        assert_eq!(
            unsafe { bound(e.as_ptr(), 0, "lower") }.unwrap(),
            Some(&b""[..])
        );
        message(unsafe { bound(std::ptr::null(), 1, "lower") });
    }

    #[test]
    fn text_must_be_utf8_and_not_null() {
        let bad = b"mem\xfftable\0";
        let m = message(unsafe { text(bad.as_ptr().cast(), "option name") });
        assert!(m.contains("is not UTF-8"), "{m}");
        message(unsafe { text(std::ptr::null(), "option name") });
        assert_eq!(unsafe { text(c"ok".as_ptr(), "x") }.unwrap(), "ok");
    }

    #[test]
    fn paths_are_bytes_but_not_null_or_empty() {
        assert_eq!(message(unsafe { path(std::ptr::null()) }), "path is NULL");
        assert_eq!(message(unsafe { path(c"".as_ptr()) }), "path is empty");
        let p = unsafe { path(c"/tmp/\xff".as_ptr()) }.unwrap();
        assert_eq!(p.as_os_str().len(), 6);
    }

    #[test]
    fn null_handles_and_outputs_are_refused() {
        message(unsafe { object::<u32>(std::ptr::null(), "db") });
        message(unsafe { object_mut::<u32>(std::ptr::null_mut(), "iterator") });
        let m = message(unsafe { output::<usize>(std::ptr::null_mut(), "value_len") });
        assert_eq!(m, "value_len (an output) is NULL");
    }
}

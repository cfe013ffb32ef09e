//! Status codes, and the boundary every entry point goes through: [`guard`] runs the body
//! under `catch_unwind` and turns its outcome into a code and a message.

use crate::buffer::malloc_cstring;
use std::any::Any;
use std::ffi::c_char;
use std::os::raw::c_int;
use std::panic::{self, AssertUnwindSafe};

/// What a function returns: `TWAIN_OK` (0), or the code of the error that stopped it.
pub type twain_status = c_int;

// DO NOT CHANGE THESE VALUES: C programs compile them in. New codes take new numbers.

/// Success.
pub const TWAIN_OK: twain_status = 0;
/// An operating-system I/O call failed (`twain::Error::Io`).
pub const TWAIN_IO: twain_status = 1;
/// Stored bytes failed a check; the message names the file and offset
/// (`twain::Error::Corruption`).
pub const TWAIN_CORRUPTION: twain_status = 2;
/// An argument was refused: a NULL pointer, a NULL data pointer with a non-zero length, a
/// length above twain's limits, text that is not UTF-8, an unknown option or a bad option
/// value, an iterator not positioned on an entry (`twain::Error::InvalidArgument`, and the
/// C layer's own checks).
pub const TWAIN_INVALID_ARGUMENT: twain_status = 3;
/// The feature exists in twain's design but is not built yet
/// (`twain::Error::NotSupported`).
pub const TWAIN_NOT_SUPPORTED: twain_status = 4;
/// The database refuses writes: opened read-only, or an earlier failure made it read-only
/// until reopened; the message says which (`twain::Error::ReadOnly`).
pub const TWAIN_READ_ONLY: twain_status = 5;
/// Another process (or another open handle in this one) has the database open
/// (`twain::Error::Locked`).
pub const TWAIN_LOCKED: twain_status = 6;
/// There is no database at the path and `create_if_missing` is off
/// (`twain::Error::NotFound`). A missing *key* is not an error: `twain_get` reports it
/// with a NULL value.
pub const TWAIN_NOT_FOUND: twain_status = 7;
/// A database exists at the path and `error_if_exists` is on
/// (`twain::Error::AlreadyExists`).
pub const TWAIN_ALREADY_EXISTS: twain_status = 8;
/// A kind of `twain::Error` newer than this C API, or no memory for a buffer to return;
/// the message says which.
pub const TWAIN_OTHER: twain_status = 9;
/// A bug in twain: a panic caught at the C boundary. The message says where; the
/// object the call was given may be in a bad state (free it; reopen a database).
pub const TWAIN_PANIC: twain_status = 10;

/// Why a call failed: a code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// One of the `TWAIN_*` codes other than `TWAIN_OK`.
    pub code: twain_status,
    /// What went wrong, for a person.
    pub message: String,
}

impl Failure {
    /// A refused argument.
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure {
            code: TWAIN_INVALID_ARGUMENT,
            message: message.into(),
        }
    }

    /// What was asked for does not exist (`TWAIN_NOT_FOUND`).
    pub fn not_found(message: impl Into<String>) -> Failure {
        Failure {
            code: TWAIN_NOT_FOUND,
            message: message.into(),
        }
    }

    /// No memory for a buffer handed to C.
    pub fn out_of_memory(what: &str) -> Failure {
        Failure {
            code: TWAIN_OTHER,
            message: format!("out of memory for {what}"),
        }
    }

    /// A panic caught at the boundary, with its payload's text when it has one.
    fn panic(payload: &(dyn Any + Send)) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Failure {
            code: TWAIN_PANIC,
            message: format!("internal error (a panic in twain): {what}"),
        }
    }
}

impl From<twain::Error> for Failure {
    fn from(e: twain::Error) -> Failure {
        let code = match &e {
            twain::Error::Io { .. } => TWAIN_IO,
            twain::Error::Corruption { .. } => TWAIN_CORRUPTION,
            twain::Error::InvalidArgument(_) => TWAIN_INVALID_ARGUMENT,
            twain::Error::NotSupported(_) => TWAIN_NOT_SUPPORTED,
            twain::Error::ReadOnly(_) => TWAIN_READ_ONLY,
            twain::Error::Locked(_) => TWAIN_LOCKED,
            twain::Error::NotFound(_) => TWAIN_NOT_FOUND,
            twain::Error::AlreadyExists(_) => TWAIN_ALREADY_EXISTS,
            _ => TWAIN_OTHER,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}

/// Runs an entry point's body: catches a panic, and reports the outcome through `errmsg`
/// (a message on failure, NULL on success) and the returned code.
///
/// # Safety
/// `errmsg` is NULL or points to writable storage for one pointer.
pub(crate) unsafe fn guard(
    errmsg: *mut *mut c_char,
    body: impl FnOnce() -> Result<(), Failure>,
) -> twain_status {
    let outcome = match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(outcome) => outcome,
        Err(payload) => Err(Failure::panic(payload.as_ref())),
    };
    let (code, message) = match outcome {
        Ok(()) => (TWAIN_OK, std::ptr::null_mut()),
        Err(f) => (f.code, malloc_cstring(&f.message)),
    };
    if !errmsg.is_null() {
        // SAFETY: the caller promises a non-NULL `errmsg` is writable.
        unsafe { errmsg.write(message) };
    } else if !message.is_null() {
        // SAFETY: `message` was just allocated by `malloc` and is owned by nobody else.
        unsafe { libc::free(message.cast()) };
    }
    code
}

/// Runs a body that cannot fail but must not unwind into C (a free function, a
/// constructor): a panic gives `fallback`.
pub(crate) fn guard_infallible<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    panic::catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;
    use std::path::PathBuf;

    /// The code and message of a guarded body.
    fn run(body: impl FnOnce() -> Result<(), Failure>) -> (twain_status, Option<String>) {
        let mut msg: *mut c_char = std::ptr::dangling_mut();
        // SAFETY: `msg` is a writable local.
        let code = unsafe { guard(&mut msg, body) };
        let text = (!msg.is_null()).then(|| {
            // SAFETY: a non-NULL message is a NUL-terminated string from `malloc`.
            let s = unsafe { CStr::from_ptr(msg) }
                .to_string_lossy()
                .into_owned();
            unsafe { libc::free(msg.cast()) };
            s
        });
        (code, text)
    }

    #[test]
    fn success_clears_the_message() {
        assert_eq!(run(|| Ok(())), (TWAIN_OK, None));
    }

    #[test]
    fn a_panic_becomes_a_code_and_a_message() {
        let (code, msg) = run(|| panic!("boom {}", 7));
        assert_eq!(code, TWAIN_PANIC);
        assert!(msg.is_some_and(|m| m.contains("boom 7")));
        assert_eq!(guard_infallible(1, || panic!("x")), 1);
    }

    #[test]
    fn a_null_errmsg_is_allowed() {
        // SAFETY: NULL is allowed.
        let code = unsafe { guard(std::ptr::null_mut(), || Err(Failure::invalid("no"))) };
        assert_eq!(code, TWAIN_INVALID_ARGUMENT);
    }

    #[test]
    fn every_engine_error_has_its_code() {
        let p = PathBuf::from("x");
        let io = std::io::Error::other("disk on fire");
        let cases = [
            (
                twain::Error::Io {
                    op: "read",
                    path: p.clone(),
                    source: io,
                },
                TWAIN_IO,
            ),
            (twain::Error::corruption(&p, 3, "bad crc"), TWAIN_CORRUPTION),
            (
                twain::Error::InvalidArgument("k".into()),
                TWAIN_INVALID_ARGUMENT,
            ),
            (twain::Error::NotSupported("f"), TWAIN_NOT_SUPPORTED),
            (twain::Error::ReadOnly("r".into()), TWAIN_READ_ONLY),
            (twain::Error::Locked(p.clone()), TWAIN_LOCKED),
            (twain::Error::NotFound(p.clone()), TWAIN_NOT_FOUND),
            (twain::Error::AlreadyExists(p), TWAIN_ALREADY_EXISTS),
        ];
        for (e, code) in cases {
            let text = e.to_string();
            let f = Failure::from(e);
            assert_eq!((f.code, f.message), (code, text));
        }
    }

    #[test]
    fn a_nul_in_a_message_does_not_cut_it() {
        let (_, msg) = run(|| Err(Failure::invalid("a\0b")));
        assert_eq!(msg.as_deref(), Some("a\\0b"));
    }
}

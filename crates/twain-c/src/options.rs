//! `twain_options`: how a database is opened, set option by option by name.

use crate::args;
use crate::error::{guard, guard_infallible, twain_status};
use std::ffi::c_char;

/// Options for `twain_open` and `twain_open_read_only`, starting from twain's defaults.
/// Owned by the caller, who frees it with `twain_options_free`; an open copies it, so it
/// may be freed or reused right after. Not thread-safe: one thread at a time.
#[derive(Debug, Default)]
pub struct twain_options {
    pub(crate) opts: twain::Options,
}

/// New options with twain's defaults. Free with `twain_options_free`. Cannot fail (NULL
/// only if twain has a bug).
#[unsafe(no_mangle)]
pub extern "C" fn twain_options_create() -> *mut twain_options {
    guard_infallible(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(twain_options::default()))
    })
}

/// Sets the option `name` to `value`, both NUL-terminated UTF-8, as the command line's
/// `--set name=value` does: sizes take a K, M or G suffix ("8M"), flags "true"/"false",
/// e.g. ("memtable_size", "8M"), ("create_if_missing", "false"), ("gc_mode", "vlog").
/// The options are unchanged on an error.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` for NULL `options`, `name` or `value`, text that is not
/// UTF-8, an unknown name, a malformed value or one outside the option's range.
///
/// # Safety
/// `options` is NULL or a live `twain_options`; `name` and `value` are NULL or
/// NUL-terminated; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_options_set(
    options: *mut twain_options,
    name: *const c_char,
    value: *const c_char,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let options = args::object_mut(options, "options")?;
            let name = args::text(name, "option name")?;
            let value = args::text(value, "option value")?;
            Ok(options.opts.set(name, value)?)
        })
    }
}

/// Frees options made by `twain_options_create`. NULL is allowed (it does nothing).
///
/// # Safety
/// `options` is NULL or a live `twain_options`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_options_free(options: *mut twain_options) {
    if !options.is_null() {
        // SAFETY: the caller hands over a pointer from `Box::into_raw`.
        guard_infallible((), || drop(unsafe { Box::from_raw(options) }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{TWAIN_INVALID_ARGUMENT, TWAIN_OK};
    use crate::tests::call;

    #[test]
    fn set_takes_names_and_refuses_bad_ones() {
        let o = twain_options_create();
        let ok =
            call(|e| unsafe { twain_options_set(o, c"memtable_size".as_ptr(), c"8M".as_ptr(), e) });
        assert_eq!(ok, (TWAIN_OK, None));
        assert_eq!(unsafe { &*o }.opts.memtable_size, 8 << 20);

        let (code, msg) =
            call(|e| unsafe { twain_options_set(o, c"nope".as_ptr(), c"1".as_ptr(), e) });
        assert_eq!(code, TWAIN_INVALID_ARGUMENT);
        assert!(msg.unwrap().contains("unknown option"));
        let (code, _) = call(|e| unsafe {
            twain_options_set(o, c"memtable_size".as_ptr(), c"lots".as_ptr(), e)
        });
        assert_eq!(code, TWAIN_INVALID_ARGUMENT);
        let bad = b"memtable\xff\0";
        let (code, msg) =
            call(|e| unsafe { twain_options_set(o, bad.as_ptr().cast(), c"8M".as_ptr(), e) });
        assert_eq!(code, TWAIN_INVALID_ARGUMENT);
        assert!(msg.unwrap().contains("not UTF-8"));
        assert_eq!(unsafe { &*o }.opts.memtable_size, 8 << 20);
        unsafe { twain_options_free(o) };
    }

    #[test]
    fn null_arguments_are_refused() {
        let o = twain_options_create();
        let null = std::ptr::null();
        for (options, name, value, what) in [
            (
                std::ptr::null_mut(),
                c"a".as_ptr(),
                c"b".as_ptr(),
                "options is NULL",
            ),
            (o, null, c"b".as_ptr(), "option name is NULL"),
            (o, c"a".as_ptr(), null, "option value is NULL"),
        ] {
            let r = call(|e| unsafe { twain_options_set(options, name, value, e) });
            assert_eq!(r, (TWAIN_INVALID_ARGUMENT, Some(what.to_string())));
        }
        assert_eq!(
            unsafe { twain_options_set(o, null, null, std::ptr::null_mut()) },
            TWAIN_INVALID_ARGUMENT
        );
        unsafe { twain_options_free(o) };
        unsafe { twain_options_free(std::ptr::null_mut()) };
    }
}

//! `twain_db`: opening and closing a database, single-key reads and writes, statistics.

use crate::args;
use crate::buffer::{malloc_copy, malloc_cstring};
use crate::error::{Failure, guard, twain_status};
use crate::options::twain_options;
use std::ffi::c_char;

/// An open database. Thread-safe: any number of threads may use one handle at once.
/// Owned by the caller, who closes (and frees) it with `twain_close` after freeing the
/// snapshots and iterators made from it.
#[derive(Debug)]
pub struct twain_db {
    pub(crate) db: twain::Db,
}

/// The engine's options from a caller's `twain_options`, or the defaults for NULL.
///
/// # Safety
/// `options` is NULL or a live `twain_options`.
unsafe fn options_or_default(options: *const twain_options) -> twain::Options {
    // SAFETY: the caller's promise.
    unsafe { options.as_ref() }.map_or_else(twain::Options::default, |o| o.opts.clone())
}

/// Opens (creating it if missing, unless the option `create_if_missing` is "false") the
/// database in directory `path`, and stores the handle in `*db`. `options` may be NULL
/// for the defaults; it is copied, the caller still owns it. `*db` is set to NULL on an
/// error.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL or empty `path`, NULL `db`, options out of
/// range), `TWAIN_NOT_FOUND` (no database and `create_if_missing` off),
/// `TWAIN_ALREADY_EXISTS` (`error_if_exists` on), `TWAIN_LOCKED` (open elsewhere),
/// `TWAIN_IO`, `TWAIN_CORRUPTION`. A directory whose file system refuses writes opens
/// read-only, as with `twain_open_read_only`.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `options` is NULL or a live `twain_options`; `db` is
/// NULL or writable; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_open(
    path: *const c_char,
    options: *const twain_options,
    db: *mut *mut twain_db,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe { open(path, options, db, errmsg, twain::Db::open) }
}

/// Opens the existing database in directory `path` for reading only: no lock is taken
/// and nothing is written, so it works while another process has the database open (it
/// sees the state of the moment it opened). Every write through it fails with
/// `TWAIN_READ_ONLY`. Arguments and errors as `twain_open`.
///
/// # Safety
/// As `twain_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_open_read_only(
    path: *const c_char,
    options: *const twain_options,
    db: *mut *mut twain_db,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe { open(path, options, db, errmsg, twain::Db::open_read_only) }
}

/// Both opens.
///
/// # Safety
/// As `twain_open`.
unsafe fn open(
    path: *const c_char,
    options: *const twain_options,
    db: *mut *mut twain_db,
    errmsg: *mut *mut c_char,
    how: fn(std::path::PathBuf, twain::Options) -> twain::Result<twain::Db>,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let out = args::output(db, "db")?;
            out.set(std::ptr::null_mut());
            let path = args::path(path)?;
            let handle = how(path, options_or_default(options))?;
            out.set(Box::into_raw(Box::new(twain_db { db: handle })));
            Ok(())
        })
    }
}

/// Closes the database and frees the handle, reporting an error of the final sync of the
/// log (the handle is freed either way). NULL is allowed (it does nothing and returns
/// `TWAIN_OK`).
///
/// REQUIRES: no other thread is using `db`; free its snapshots and iterators first (ones
/// left over stay safe to use and free, but keep the database's files open).
///
/// # Safety
/// `db` is NULL or a live `twain_db`, not used afterwards; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_close(db: *mut twain_db, errmsg: *mut *mut c_char) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        guard(errmsg, || {
            if db.is_null() {
                return Ok(());
            }
            let handle = Box::from_raw(db);
            Ok(handle.db.close()?)
        })
    }
}

/// Sets `key` to `value`. With `sync`, returns only once the write (and every write before
/// it) is durable. Keys up to 65,536 bytes, values up to 64 MiB; empty ones are allowed
/// (a NULL pointer with a zero length is empty).
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db`, a NULL pointer with a non-zero length, a
/// length over the limit), `TWAIN_READ_ONLY`, `TWAIN_IO`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `key` and `value` are NULL or point to `key_len` and
/// `value_len` readable bytes; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_put(
    db: *const twain_db,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    sync: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe { put(db, (key, key_len), (value, value_len), (None, sync), errmsg) }
}

/// A put, expiring or not, as `twain_put` describes.
///
/// # Safety
/// As `twain_put`.
unsafe fn put(
    db: *const twain_db,
    (key, key_len): (*const u8, usize),
    (value, value_len): (*const u8, usize),
    (expires_at, sync): (Option<u64>, bool),
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let db = args::object(db, "db")?;
            let key = args::key(key, key_len, "key")?;
            let value = args::value(value, value_len)?;
            let opts = twain::WriteOptions::default().sync(sync);
            match expires_at {
                Some(at) => db.db.put_with_expiry_opt(key, value, at, &opts)?,
                None => db.db.put_opt(key, value, &opts)?,
            }
            Ok(())
        })
    }
}

/// Sets `key` to `value` until `expires_at`, in milliseconds since the Unix epoch by the
/// database's clock (`twain_now_millis`): from that moment on, reads no longer see the key
/// (nor any older value of it), and compaction drops the pair. A time already past makes
/// the put act as a delete. A later `twain_put` of the key never expires. `sync` as in
/// `twain_put`.
///
/// Errors: as `twain_put`.
///
/// # Safety
/// As `twain_put`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn twain_put_with_expiry(
    db: *const twain_db,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    expires_at: u64,
    sync: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        put(
            db,
            (key, key_len),
            (value, value_len),
            (Some(expires_at), sync),
            errmsg,
        )
    }
}

/// When `key` expires: `*expires_at` is its expiry time in milliseconds since the Unix
/// epoch, or 0 for a key that never expires (no key that exists can have expired at 0).
/// A key that is missing or expired returns `TWAIN_NOT_FOUND`, with `*expires_at` 0.
/// No separated value is read.
///
/// Errors: `TWAIN_NOT_FOUND` (no such key), `TWAIN_INVALID_ARGUMENT` (NULL `db` or
/// `expires_at`; a bad key), `TWAIN_IO`, `TWAIN_CORRUPTION`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `key` is NULL or points to `key_len` readable bytes;
/// `expires_at` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_expiry(
    db: *const twain_db,
    key: *const u8,
    key_len: usize,
    expires_at: *mut u64,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let out = args::output(expires_at, "expires_at")?;
            out.set(0);
            let db = args::object(db, "db")?;
            let key = args::key(key, key_len, "key")?;
            match db.db.expiry(key)? {
                twain::KeyExpiry::Missing => Err(Failure::not_found("no such key")),
                twain::KeyExpiry::Never => Ok(()),
                twain::KeyExpiry::At(at) => {
                    out.set(at);
                    Ok(())
                }
            }
        })
    }
}

/// The database's clock, which expiry is judged by: `*now` in milliseconds since the Unix
/// epoch.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db` or `now`).
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `now` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_now_millis(
    db: *const twain_db,
    now: *mut u64,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let out = args::output(now, "now")?;
            let db = args::object(db, "db")?;
            out.set(db.db.now_millis());
            Ok(())
        })
    }
}

/// Deletes `key` (deleting a missing key is not an error). `sync` as in `twain_put`.
///
/// Errors: as `twain_put`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `key` is NULL or points to `key_len` readable bytes;
/// `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_delete(
    db: *const twain_db,
    key: *const u8,
    key_len: usize,
    sync: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let db = args::object(db, "db")?;
            let key = args::key(key, key_len, "key")?;
            Ok(db
                .db
                .delete_opt(key, &twain::WriteOptions::default().sync(sync))?)
        })
    }
}

/// Deletes every key from `start` (included) to `end` (excluded), in one write however
/// many keys the range holds. `sync` as in `twain_put`. An empty range (`start` equal to
/// `end`) deletes nothing.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db`; a bad key; `start` after `end`, compared
/// bytewise), `TWAIN_READ_ONLY`, `TWAIN_IO`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `start` and `end` are NULL or point to `start_len`
/// and `end_len` readable bytes; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_delete_range(
    db: *const twain_db,
    start: *const u8,
    start_len: usize,
    end: *const u8,
    end_len: usize,
    sync: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let db = args::object(db, "db")?;
            let start = args::key(start, start_len, "start")?;
            let end = args::key(end, end_len, "end")?;
            Ok(db
                .db
                .delete_range_opt(start, end, &twain::WriteOptions::default().sync(sync))?)
        })
    }
}

/// Reads the newest value of `key`. Found: `*value` is a copy the caller frees with
/// `twain_free` (never NULL, also for an empty value) and `*value_len` its length. Missing:
/// `TWAIN_OK` with `*value` NULL and `*value_len` 0. On an error both are NULL and 0 too.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db`, `value` or `value_len`; a bad key),
/// `TWAIN_IO`, `TWAIN_CORRUPTION`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `key` is NULL or points to `key_len` readable bytes;
/// `value`, `value_len` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_get(
    db: *const twain_db,
    key: *const u8,
    key_len: usize,
    value: *mut *mut u8,
    value_len: *mut usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            read_into(value, value_len, || {
                let db = args::object(db, "db")?;
                let key = args::key(key, key_len, "key")?;
                Ok(db.db.get(key)?)
            })
        })
    }
}

/// Runs a point read (which checks its other arguments) and hands its value to C as
/// `twain_get` describes: the outputs are cleared first, so they are NULL and 0 on any
/// error.
///
/// # Safety
/// `value` and `value_len` are NULL or writable.
pub(crate) unsafe fn read_into(
    value: *mut *mut u8,
    value_len: *mut usize,
    read: impl FnOnce() -> Result<Option<Vec<u8>>, Failure>,
) -> Result<(), Failure> {
    // SAFETY: the caller's promises.
    let (out, out_len) = unsafe {
        (
            args::output(value, "value")?,
            args::output(value_len, "value_len")?,
        )
    };
    out.set(std::ptr::null_mut());
    out_len.set(0);
    if let Some(v) = read()? {
        out.set(malloc_copy(&v)?);
        out_len.set(v.len());
    }
    Ok(())
}

/// The database's statistics as one JSON object (twain's `Stats::to_json`: bytes written,
/// files per level, value files, space and write amplification, ...). `*json` is a
/// NUL-terminated string the caller frees with `twain_free`; NULL on an error.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db` or `json`), `TWAIN_IO`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `json` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_stats_json(
    db: *const twain_db,
    json: *mut *mut c_char,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let out = args::output(json, "json")?;
            out.set(std::ptr::null_mut());
            let db = args::object(db, "db")?;
            let text = malloc_cstring(&db.db.stats()?.to_json());
            if text.is_null() {
                return Err(Failure::out_of_memory("the statistics"));
            }
            out.set(text);
            Ok(())
        })
    }
}

/// Writes the memtable to a table file and waits until it is installed (the writes are
/// then read from tables, through the block cache).
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db`), `TWAIN_READ_ONLY`, `TWAIN_IO`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_flush(
    db: *const twain_db,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let db = args::object(db, "db")?;
            Ok(db.db.flush()?)
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::error::{TWAIN_INVALID_ARGUMENT, TWAIN_NOT_FOUND, TWAIN_OK, TWAIN_READ_ONLY};
    use crate::options::{twain_options_create, twain_options_free, twain_options_set};
    use crate::tests::call;
    use std::ffi::CString;

    /// Closes a handle, ignoring the outcome.
    pub(crate) fn close_quietly(db: *mut twain_db) {
        let _ = unsafe { twain_close(db, std::ptr::null_mut()) };
    }

    /// A database in a fresh directory.
    pub(crate) fn open_temp() -> (tempfile::TempDir, *mut twain_db) {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().to_str().unwrap()).unwrap();
        let mut db = std::ptr::null_mut();
        let r = call(|e| unsafe { twain_open(path.as_ptr(), std::ptr::null(), &mut db, e) });
        assert_eq!(r, (TWAIN_OK, None));
        (dir, db)
    }

    /// `twain_get` as a Rust value.
    fn get(db: *const twain_db, key: &[u8]) -> Option<Vec<u8>> {
        let (mut v, mut n) = (std::ptr::null_mut(), 0usize);
        let r = call(|e| unsafe { twain_get(db, key.as_ptr(), key.len(), &mut v, &mut n, e) });
        assert_eq!(r, (TWAIN_OK, None));
        (!v.is_null()).then(|| {
            let out = unsafe { std::slice::from_raw_parts(v, n) }.to_vec();
            unsafe { crate::twain_free(v.cast()) };
            out
        })
    }

    #[test]
    fn put_get_delete_round_trip() {
        let (_dir, db) = open_temp();
        let r = call(|e| unsafe { twain_put(db, b"k".as_ptr(), 1, b"v".as_ptr(), 1, true, e) });
        assert_eq!(r, (TWAIN_OK, None));
        assert_eq!(get(db, b"k"), Some(b"v".to_vec()));
        let r =
            call(|e| unsafe { twain_put(db, std::ptr::null(), 0, std::ptr::null(), 0, false, e) });
        assert_eq!(r, (TWAIN_OK, None));
        assert_eq!(get(db, b""), Some(Vec::new()));
        let r = call(|e| unsafe { twain_delete(db, b"k".as_ptr(), 1, false, e) });
        assert_eq!(r, (TWAIN_OK, None));
        assert_eq!(get(db, b"k"), None);
        close_quietly(db);
    }

    #[test]
    fn bad_arguments_are_refused_with_a_message() {
        let (_dir, db) = open_temp();
        let null = std::ptr::null::<u8>();
        let (mut v, mut n) = (std::ptr::null_mut(), 0usize);
        let cases: Vec<(twain_status, Option<String>)> = vec![
            call(|e| unsafe { twain_put(std::ptr::null(), null, 0, null, 0, false, e) }),
            call(|e| unsafe { twain_put(db, null, 5, null, 0, false, e) }),
            call(|e| unsafe { twain_put(db, b"k".as_ptr(), 1, null, 9, false, e) }),
            call(|e| unsafe {
                twain_put(
                    db,
                    b"k".as_ptr(),
                    twain::MAX_KEY_SIZE + 1,
                    null,
                    0,
                    false,
                    e,
                )
            }),
            call(|e| unsafe {
                twain_put(
                    db,
                    b"k".as_ptr(),
                    1,
                    b"v".as_ptr(),
                    twain::MAX_VALUE_SIZE + 1,
                    false,
                    e,
                )
            }),
            call(|e| unsafe { twain_delete(db, null, 1, false, e) }),
            call(|e| unsafe { twain_get(db, b"k".as_ptr(), 1, std::ptr::null_mut(), &mut n, e) }),
            call(|e| unsafe { twain_get(db, b"k".as_ptr(), 1, &mut v, std::ptr::null_mut(), e) }),
            call(|e| unsafe { twain_stats_json(db, std::ptr::null_mut(), e) }),
        ];
        for (code, msg) in cases {
            assert_eq!(code, TWAIN_INVALID_ARGUMENT, "{msg:?}");
            assert!(msg.is_some_and(|m| !m.is_empty()));
        }
        close_quietly(db);
    }

    #[test]
    fn open_reports_a_missing_database_and_read_only_refuses_writes() {
        let null = std::ptr::null_mut();
        let dir = tempfile::tempdir().unwrap();
        let missing = CString::new(dir.path().join("none").to_str().unwrap()).unwrap();
        let o = twain_options_create();
        let name = c"create_if_missing".as_ptr();
        assert_eq!(
            unsafe { twain_options_set(o, name, c"false".as_ptr(), null) },
            TWAIN_OK
        );
        let mut db: *mut twain_db = std::ptr::dangling_mut();
        let (code, msg) = call(|e| unsafe { twain_open(missing.as_ptr(), o, &mut db, e) });
        assert_eq!(code, TWAIN_NOT_FOUND);
        assert!(msg.unwrap().contains("no database"));
        assert!(db.is_null());
        unsafe { twain_options_free(o) };

        let (_dir, w) = open_temp();
        let path = unsafe { &*w }.db.path().to_str().unwrap().to_string();
        let path = CString::new(path).unwrap();
        let put = unsafe { twain_put(w, b"a".as_ptr(), 1, b"1".as_ptr(), 1, true, null) };
        assert_eq!(put, TWAIN_OK);
        let mut r = std::ptr::null_mut();
        let code = unsafe { twain_open_read_only(path.as_ptr(), std::ptr::null(), &mut r, null) };
        assert_eq!(code, TWAIN_OK);
        assert_eq!(get(r, b"a"), Some(b"1".to_vec()));
        let (code, _) =
            call(|e| unsafe { twain_put(r, b"b".as_ptr(), 1, std::ptr::null(), 0, false, e) });
        assert_eq!(code, TWAIN_READ_ONLY);
        close_quietly(r);
        close_quietly(w);
        assert_eq!(unsafe { twain_close(std::ptr::null_mut(), null) }, TWAIN_OK);
    }

    #[test]
    fn stats_are_json() {
        let (_dir, db) = open_temp();
        let mut json = std::ptr::null_mut();
        assert_eq!(
            call(|e| unsafe { twain_stats_json(db, &mut json, e) }),
            (TWAIN_OK, None)
        );
        let text = unsafe { std::ffi::CStr::from_ptr(json) }
            .to_str()
            .unwrap()
            .to_string();
        unsafe { crate::twain_free(json.cast()) };
        assert!(
            text.starts_with('{') && text.contains("\"user_ops\""),
            "{text}"
        );
        close_quietly(db);
    }
}

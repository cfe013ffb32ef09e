//! `twain_snapshot`: a consistent read view of a database.

use crate::args;
use crate::db::{read_into, twain_db};
use crate::error::{guard, guard_infallible, twain_status};
use std::ffi::c_char;
use std::sync::Arc;

/// A consistent read view: reads and iterators through it see the database as it was when
/// the snapshot was made. Compaction keeps what it can see until it is freed, so free
/// snapshots you no longer need (with `twain_snapshot_free`). Thread-safe. Iterators made
/// from it keep the view alive until they are freed too.
#[derive(Debug)]
pub struct twain_snapshot {
    pub(crate) snapshot: Arc<twain::Snapshot>,
}

/// Makes a snapshot of `db` as it is now and stores it in `*snapshot` (NULL on an error).
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db` or `snapshot`).
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `snapshot` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_snapshot_create(
    db: *const twain_db,
    snapshot: *mut *mut twain_snapshot,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let out = args::output(snapshot, "snapshot")?;
            out.set(std::ptr::null_mut());
            let db = args::object(db, "db")?;
            let snapshot = Arc::new(db.db.snapshot());
            out.set(Box::into_raw(Box::new(twain_snapshot { snapshot })));
            Ok(())
        })
    }
}

/// Reads the value `key` had when the snapshot was made. Outputs, ownership and errors as
/// `twain_get`: a missing key is `TWAIN_OK` with `*value` NULL.
///
/// # Safety
/// `snapshot` is NULL or a live `twain_snapshot`; `key` is NULL or points to `key_len`
/// readable bytes; `value`, `value_len` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_snapshot_get(
    snapshot: *const twain_snapshot,
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
                let snapshot = args::object(snapshot, "snapshot")?;
                let key = args::key(key, key_len, "key")?;
                Ok(snapshot.snapshot.get(key)?)
            })
        })
    }
}

/// Releases a snapshot. NULL is allowed (it does nothing).
///
/// # Safety
/// `snapshot` is NULL or a live `twain_snapshot`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_snapshot_free(snapshot: *mut twain_snapshot) {
    if !snapshot.is_null() {
        // SAFETY: the caller hands over a pointer from `Box::into_raw`.
        guard_infallible((), || drop(unsafe { Box::from_raw(snapshot) }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::{close_quietly, open_temp};
    use crate::error::{TWAIN_INVALID_ARGUMENT, TWAIN_OK};
    use crate::tests::call;

    #[test]
    fn a_snapshot_keeps_its_view() {
        let (_dir, db) = open_temp();
        unsafe { (*db).db.put("k", "old").unwrap() };
        let mut s = std::ptr::null_mut();
        assert_eq!(
            call(|e| unsafe { twain_snapshot_create(db, &mut s, e) }),
            (TWAIN_OK, None)
        );
        unsafe { (*db).db.put("k", "new").unwrap() };
        let (mut v, mut n) = (std::ptr::null_mut(), 0);
        let r = call(|e| unsafe { twain_snapshot_get(s, b"k".as_ptr(), 1, &mut v, &mut n, e) });
        assert_eq!(r, (TWAIN_OK, None));
        assert_eq!(unsafe { std::slice::from_raw_parts(v, n) }, b"old");
        unsafe { crate::twain_free(v.cast()) };
        let r = call(|e| unsafe { twain_snapshot_get(s, b"x".as_ptr(), 1, &mut v, &mut n, e) });
        assert_eq!((r.0, v.is_null(), n), (TWAIN_OK, true, 0));
        unsafe { twain_snapshot_free(s) };
        close_quietly(db);
    }

    #[test]
    fn null_arguments_are_refused() {
        let (_dir, db) = open_temp();
        let mut s = std::ptr::dangling_mut();
        let (mut v, mut n) = (std::ptr::null_mut(), 0);
        let r = call(|e| unsafe { twain_snapshot_create(std::ptr::null(), &mut s, e) });
        assert_eq!((r.0, s.is_null()), (TWAIN_INVALID_ARGUMENT, true));
        let r = call(|e| unsafe { twain_snapshot_create(db, std::ptr::null_mut(), e) });
        assert_eq!(r.0, TWAIN_INVALID_ARGUMENT);
        let r = call(|e| unsafe {
            twain_snapshot_get(std::ptr::null(), b"k".as_ptr(), 1, &mut v, &mut n, e)
        });
        assert_eq!(r.0, TWAIN_INVALID_ARGUMENT);
        unsafe { twain_snapshot_free(std::ptr::null_mut()) };
        close_quietly(db);
    }
}

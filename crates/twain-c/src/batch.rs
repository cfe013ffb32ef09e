//! `twain_writebatch`: puts and deletes applied atomically by `twain_write`.

use crate::args;
use crate::db::twain_db;
use crate::error::{Failure, guard, guard_infallible, twain_status};
use std::ffi::c_char;

/// Puts and deletes applied atomically, in order, by `twain_write`; a later operation on
/// the same key wins. Owned by the caller, who frees it with `twain_writebatch_free`. Not
/// thread-safe: one thread at a time.
#[derive(Debug, Default)]
pub struct twain_writebatch {
    batch: twain::WriteBatch,
}

impl twain_writebatch {
    /// Refuses an operation that would take the batch's keys and values past
    /// `twain::MAX_BATCH_SIZE` (the engine's own check at write time, which also counts
    /// each entry's framing, stays the final word).
    fn check_room(&self, more: usize) -> Result<(), Failure> {
        let total = self.batch.payload_bytes().saturating_add(more);
        if total > twain::MAX_BATCH_SIZE {
            return Err(Failure::invalid(format!(
                "batch of {total} bytes of keys and values exceeds the limit of {}",
                twain::MAX_BATCH_SIZE
            )));
        }
        Ok(())
    }
}

/// A new, empty batch. Free with `twain_writebatch_free`. Cannot fail (NULL only if twain
/// has a bug).
#[unsafe(no_mangle)]
pub extern "C" fn twain_writebatch_create() -> *mut twain_writebatch {
    guard_infallible(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(twain_writebatch::default()))
    })
}

/// Adds a put of `key` = `value` (copied) to the batch. Limits as `twain_put`; also the
/// batch's keys and values together up to 512 MiB. The batch is unchanged on an error.
///
/// Errors: `TWAIN_INVALID_ARGUMENT`.
///
/// # Safety
/// `batch` is NULL or a live `twain_writebatch`; `key` and `value` are NULL or point to
/// `key_len` and `value_len` readable bytes; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_writebatch_put(
    batch: *mut twain_writebatch,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe { put(batch, (key, key_len), (value, value_len), None, errmsg) }
}

/// Adds a put of `key` to `value` (both copied) that expires at `expires_at`
/// (milliseconds since the Unix epoch; see `twain_put_with_expiry`). Limits and errors as
/// `twain_writebatch_put`.
///
/// # Safety
/// As `twain_writebatch_put`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_writebatch_put_with_expiry(
    batch: *mut twain_writebatch,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    expires_at: u64,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        put(
            batch,
            (key, key_len),
            (value, value_len),
            Some(expires_at),
            errmsg,
        )
    }
}

/// Adds a put to the batch, expiring or not, as `twain_writebatch_put` describes.
///
/// # Safety
/// As `twain_writebatch_put`.
unsafe fn put(
    batch: *mut twain_writebatch,
    (key, key_len): (*const u8, usize),
    (value, value_len): (*const u8, usize),
    expires_at: Option<u64>,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let batch = args::object_mut(batch, "batch")?;
            let key = args::key(key, key_len, "key")?;
            let value = args::value(value, value_len)?;
            batch.check_room(key.len() + value.len())?;
            match expires_at {
                Some(at) => batch.batch.put_with_expiry(key, value, at),
                None => batch.batch.put(key, value),
            };
            Ok(())
        })
    }
}

/// Adds a delete of `key` (copied) to the batch. Limits and errors as
/// `twain_writebatch_put`.
///
/// # Safety
/// `batch` is NULL or a live `twain_writebatch`; `key` is NULL or points to `key_len`
/// readable bytes; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_writebatch_delete(
    batch: *mut twain_writebatch,
    key: *const u8,
    key_len: usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let batch = args::object_mut(batch, "batch")?;
            let key = args::key(key, key_len, "key")?;
            batch.check_room(key.len())?;
            batch.batch.delete(key);
            Ok(())
        })
    }
}

/// Adds a deletion of every key from `start` (included) to `end` (excluded), both copied,
/// to the batch. Limits and errors as `twain_writebatch_put`; `start` after `end`
/// (compared bytewise) is `TWAIN_INVALID_ARGUMENT`, with nothing added.
///
/// # Safety
/// `batch` is NULL or a live `twain_writebatch`; `start` and `end` are NULL or point to
/// `start_len` and `end_len` readable bytes; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_writebatch_delete_range(
    batch: *mut twain_writebatch,
    start: *const u8,
    start_len: usize,
    end: *const u8,
    end_len: usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let batch = args::object_mut(batch, "batch")?;
            let start = args::key(start, start_len, "start")?;
            let end = args::key(end, end_len, "end")?;
            if start > end {
                return Err(Failure::invalid(
                    "range deletion whose start is after its end",
                ));
            }
            batch.check_room(start.len() + end.len())?;
            batch.batch.delete_range(start, end);
            Ok(())
        })
    }
}

/// Applies the batch atomically: all of its operations or none. With `sync`, returns only
/// once the batch (and every write before it) is durable. The batch's operations are moved
/// out: afterwards it is empty, whether the write succeeded or not, and can be filled
/// again. The caller still owns (and frees) it.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db` or `batch`, a batch over the limit),
/// `TWAIN_READ_ONLY`, `TWAIN_IO`.
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `batch` is NULL or a live `twain_writebatch`;
/// `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_write(
    db: *const twain_db,
    batch: *mut twain_writebatch,
    sync: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let db = args::object(db, "db")?;
            let batch = args::object_mut(batch, "batch")?;
            let ops = std::mem::take(&mut batch.batch);
            Ok(db
                .db
                .write(ops, &twain::WriteOptions::default().sync(sync))?)
        })
    }
}

/// Frees a batch. NULL is allowed (it does nothing).
///
/// # Safety
/// `batch` is NULL or a live `twain_writebatch`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_writebatch_free(batch: *mut twain_writebatch) {
    if !batch.is_null() {
        // SAFETY: the caller hands over a pointer from `Box::into_raw`.
        guard_infallible((), || drop(unsafe { Box::from_raw(batch) }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::{close_quietly, open_temp};
    use crate::error::{TWAIN_INVALID_ARGUMENT, TWAIN_OK};
    use crate::tests::call;

    #[test]
    fn a_batch_applies_in_order_and_is_emptied() {
        let (_dir, db) = open_temp();
        let b = twain_writebatch_create();
        let null = std::ptr::null_mut();
        unsafe {
            assert_eq!(
                twain_writebatch_put(b, b"a".as_ptr(), 1, b"1".as_ptr(), 1, null),
                TWAIN_OK
            );
            assert_eq!(
                twain_writebatch_put(b, b"b".as_ptr(), 1, b"2".as_ptr(), 1, null),
                TWAIN_OK
            );
            assert_eq!(twain_writebatch_delete(b, b"a".as_ptr(), 1, null), TWAIN_OK);
            assert_eq!((*b).batch.len(), 3);
            assert_eq!(twain_write(db, b, true, null), TWAIN_OK);
            assert!((*b).batch.is_empty());
            assert_eq!((*db).db.get("a").unwrap(), None);
            assert_eq!((*db).db.get("b").unwrap(), Some(b"2".to_vec()));
            twain_writebatch_free(b);
            twain_writebatch_free(std::ptr::null_mut());
        }
        close_quietly(db);
    }

    #[test]
    fn bad_arguments_leave_the_batch_unchanged() {
        let (_dir, db) = open_temp();
        let b = twain_writebatch_create();
        let null = std::ptr::null::<u8>();
        let cases = [
            call(|e| unsafe { twain_writebatch_put(std::ptr::null_mut(), null, 0, null, 0, e) }),
            call(|e| unsafe { twain_writebatch_put(b, null, 1, null, 0, e) }),
            call(|e| unsafe { twain_writebatch_put(b, b"k".as_ptr(), 1, null, 2, e) }),
            call(|e| unsafe {
                twain_writebatch_put(b, b"k".as_ptr(), twain::MAX_KEY_SIZE + 1, null, 0, e)
            }),
            call(|e| unsafe { twain_writebatch_delete(b, null, 3, e) }),
            call(|e| unsafe { twain_writebatch_delete(std::ptr::null_mut(), null, 0, e) }),
            call(|e| unsafe { twain_write(std::ptr::null(), b, false, e) }),
            call(|e| unsafe { twain_write(db, std::ptr::null_mut(), false, e) }),
        ];
        for (code, msg) in cases {
            assert_eq!(code, TWAIN_INVALID_ARGUMENT, "{msg:?}");
            assert!(msg.is_some());
        }
        assert!(unsafe { &*b }.batch.is_empty());
        unsafe { twain_writebatch_free(b) };
        close_quietly(db);
    }

    #[test]
    fn the_batch_size_limit_is_checked_before_copying() {
        let mut b = twain_writebatch::default();
        assert!(b.check_room(twain::MAX_BATCH_SIZE).is_ok());
        b.batch.put("k", "v");
        let f = b.check_room(twain::MAX_BATCH_SIZE).unwrap_err();
        assert_eq!(f.code, TWAIN_INVALID_ARGUMENT);
        assert!(f.message.contains("exceeds the limit"), "{}", f.message);
    }
}

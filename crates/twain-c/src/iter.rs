//! `twain_iterator`: a cursor over a range of keys, positioned on one entry at a time (the
//! RocksDB/LevelDB shape C users know), over twain's between-keys cursor (`DbIterator`,
//! or `Keys` in key-only mode).

use crate::args;
use crate::db::twain_db;
use crate::error::{Failure, guard, guard_infallible, twain_status};
use crate::snapshot::twain_snapshot;
use std::ffi::c_char;
use std::ops::Bound;
use std::sync::Arc;

/// An iterator over a range of keys in order, reading one consistent view of the database
/// (the moment it was made, or its snapshot's). It starts unpositioned: seek first. Then
/// it is either on an entry (`twain_iter_valid` is true; `twain_iter_key` and
/// `twain_iter_value` read it) or past either end. Owned by the caller, who frees it with
/// `twain_iter_free`. Not thread-safe: one thread at a time.
pub struct twain_iterator {
    cursor: Cursor,
    /// The entry the iterator is on: key and value (empty in key-only mode).
    current: Option<(Vec<u8>, Vec<u8>)>,
    /// The error that ended the iteration, until the next seek.
    error: Option<Failure>,
    /// The snapshot it reads, kept registered while the iterator lives.
    _snapshot: Option<Arc<twain::Snapshot>>,
}

/// twain's cursor in one of its two shapes.
enum Cursor {
    /// Keys and values.
    Pairs(twain::DbIterator),
    /// Keys only: no value file is read.
    Keys(twain::Keys),
}

/// An entry: key and value (empty for keys only).
type Item = twain::Result<(Vec<u8>, Vec<u8>)>;

/// A key range as twain takes it.
type Range = (Bound<Vec<u8>>, Bound<Vec<u8>>);

impl Cursor {
    fn seek(&mut self, key: &[u8]) {
        match self {
            Cursor::Pairs(c) => c.seek(key),
            Cursor::Keys(c) => c.seek(key),
        }
    }

    fn seek_for_prev(&mut self, key: &[u8]) {
        match self {
            Cursor::Pairs(c) => c.seek_for_prev(key),
            Cursor::Keys(c) => c.seek_for_prev(key),
        }
    }

    fn seek_to_first(&mut self) {
        match self {
            Cursor::Pairs(c) => c.seek_to_first(),
            Cursor::Keys(c) => c.seek_to_first(),
        }
    }

    fn seek_to_last(&mut self) {
        match self {
            Cursor::Pairs(c) => c.seek_to_last(),
            Cursor::Keys(c) => c.seek_to_last(),
        }
    }

    /// The entry after the cursor (twain's `next`), moving onto it.
    fn next(&mut self) -> Option<Item> {
        match self {
            Cursor::Pairs(c) => c.next(),
            Cursor::Keys(c) => c.next().map(|k| k.map(|k| (k, Vec::new()))),
        }
    }

    /// The entry before the cursor (twain's `prev`), moving onto it.
    fn prev(&mut self) -> Option<Item> {
        match self {
            Cursor::Pairs(c) => c.prev(),
            Cursor::Keys(c) => c.prev().map(|k| k.map(|k| (k, Vec::new()))),
        }
    }

    fn keys_only(&self) -> bool {
        matches!(self, Cursor::Keys(_))
    }
}

impl twain_iterator {
    fn new(it: twain::DbIterator, keys_only: bool, snapshot: Option<Arc<twain::Snapshot>>) -> Self {
        let cursor = match keys_only {
            true => Cursor::Keys(it.into_keys()),
            false => Cursor::Pairs(it),
        };
        twain_iterator {
            cursor,
            current: None,
            error: None,
            _snapshot: snapshot,
        }
    }

    /// Takes the outcome of a step: the entry it landed on, none (past an end), or an
    /// error, which ends the iteration until the next seek.
    fn land(&mut self, step: Option<Item>) -> Result<(), Failure> {
        self.current = None;
        match step {
            None => Ok(()),
            Some(Ok(entry)) => {
                self.current = Some(entry);
                Ok(())
            }
            Some(Err(e)) => {
                let f = Failure::from(e);
                self.error = Some(f.clone());
                Err(f)
            }
        }
    }

    /// The entry the iterator is on, or the refusal for an unpositioned one.
    fn entry(&self) -> Result<&(Vec<u8>, Vec<u8>), Failure> {
        self.current
            .as_ref()
            .ok_or_else(|| Failure::invalid("the iterator is not on an entry (seek first)"))
    }
}

/// The range `[lower, upper)` from C bounds (NULL with a zero length: unbounded).
///
/// # Safety
/// As `args::bound` for both.
unsafe fn range(
    lower: *const u8,
    lower_len: usize,
    upper: *const u8,
    upper_len: usize,
) -> Result<Range, Failure> {
    // SAFETY: forwarded.
    let (lower, upper) = unsafe {
        (
            args::bound(lower, lower_len, "lower bound")?,
            args::bound(upper, upper_len, "upper bound")?,
        )
    };
    Ok((
        lower.map_or(Bound::Unbounded, |k| Bound::Included(k.to_vec())),
        upper.map_or(Bound::Unbounded, |k| Bound::Excluded(k.to_vec())),
    ))
}

/// Stores in `*iter` (NULL first, and on an error) the iterator `open` makes over the range
/// of the checked bounds, with the snapshot it reads if any.
///
/// # Safety
/// `iter` is NULL or writable; the bounds as `range` requires.
pub(crate) unsafe fn create(
    iter: *mut *mut twain_iterator,
    (lower, lower_len, upper, upper_len): (*const u8, usize, *const u8, usize),
    keys_only: bool,
    open: impl FnOnce(Range) -> Result<(twain::DbIterator, Option<Arc<twain::Snapshot>>), Failure>,
) -> Result<(), Failure> {
    // SAFETY: the caller's promises.
    let out = unsafe { args::output(iter, "iter")? };
    out.set(std::ptr::null_mut());
    // SAFETY: the caller's promises.
    let range = unsafe { range(lower, lower_len, upper, upper_len)? };
    let (it, snapshot) = open(range)?;
    out.set(Box::into_raw(Box::new(twain_iterator::new(
        it, keys_only, snapshot,
    ))));
    Ok(())
}

/// Makes an iterator over the keys of `db` in `[lower, upper)`, reading the database as it
/// is now, and stores it in `*iter` (NULL on an error). A NULL bound with a zero length is
/// no bound: NULL, 0, NULL, 0 iterates over the whole database. With `keys_only` it reads
/// no value file (fast for listing keys); `twain_iter_value` then fails.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `db` or `iter`, a NULL bound with a non-zero
/// length, a bound longer than a key may be).
///
/// # Safety
/// `db` is NULL or a live `twain_db`; `lower` and `upper` are NULL or point to `lower_len`
/// and `upper_len` readable bytes; `iter` and `errmsg` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_create(
    db: *const twain_db,
    lower: *const u8,
    lower_len: usize,
    upper: *const u8,
    upper_len: usize,
    keys_only: bool,
    iter: *mut *mut twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let bounds = (lower, lower_len, upper, upper_len);
            create(iter, bounds, keys_only, |range| {
                Ok((args::object(db, "db")?.db.range(range), None))
            })
        })
    }
}

/// As `twain_iter_create`, reading the database as it was when `snapshot` was made. The
/// iterator keeps the snapshot's view alive: the snapshot may be freed before it.
///
/// # Safety
/// `snapshot` is NULL or a live `twain_snapshot`; the rest as `twain_iter_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_snapshot_iter_create(
    snapshot: *const twain_snapshot,
    lower: *const u8,
    lower_len: usize,
    upper: *const u8,
    upper_len: usize,
    keys_only: bool,
    iter: *mut *mut twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let bounds = (lower, lower_len, upper, upper_len);
            create(iter, bounds, keys_only, |range| {
                let snap = Arc::clone(&args::object(snapshot, "snapshot")?.snapshot);
                Ok((snap.range(range), Some(snap)))
            })
        })
    }
}

/// Runs a movement of the iterator: checks it, forgets the error of an earlier iteration
/// when the movement is a seek, and lands where `step` says.
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`; `errmsg` is NULL or writable.
unsafe fn movement(
    iter: *mut twain_iterator,
    errmsg: *mut *mut c_char,
    step: impl FnOnce(&mut twain_iterator) -> Result<Option<Item>, Failure>,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let it = args::object_mut(iter, "iter")?;
            let landed = step(it)?;
            it.land(landed)
        })
    }
}

/// Moves onto the first key `>= key` in the range (past the end if there is none).
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `iter`, a bad key), `TWAIN_IO`,
/// `TWAIN_CORRUPTION` (the iterator is then not valid, and `twain_iter_status` reports
/// the error until the next seek).
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`; `key` is NULL or points to `key_len` readable
/// bytes; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_seek(
    iter: *mut twain_iterator,
    key: *const u8,
    key_len: usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        movement(iter, errmsg, |it| {
            let key = args::key(key, key_len, "key")?;
            it.error = None;
            it.cursor.seek(key);
            Ok(it.cursor.next())
        })
    }
}

/// Moves onto the last key `<= key` in the range (past the start if there is none).
/// Errors as `twain_iter_seek`.
///
/// # Safety
/// As `twain_iter_seek`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_seek_for_prev(
    iter: *mut twain_iterator,
    key: *const u8,
    key_len: usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        movement(iter, errmsg, |it| {
            let key = args::key(key, key_len, "key")?;
            it.error = None;
            it.cursor.seek_for_prev(key);
            Ok(it.cursor.prev())
        })
    }
}

/// Moves onto the range's first key (not valid if the range is empty). Errors as
/// `twain_iter_seek`.
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_seek_to_first(
    iter: *mut twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        movement(iter, errmsg, |it| {
            it.error = None;
            it.cursor.seek_to_first();
            Ok(it.cursor.next())
        })
    }
}

/// Moves onto the range's last key (not valid if the range is empty). Errors as
/// `twain_iter_seek`.
///
/// # Safety
/// As `twain_iter_seek_to_first`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_seek_to_last(
    iter: *mut twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        movement(iter, errmsg, |it| {
            it.error = None;
            it.cursor.seek_to_last();
            Ok(it.cursor.prev())
        })
    }
}

/// Moves onto the next key (not valid past the range's end).
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `iter`, or an iterator not on an entry),
/// `TWAIN_IO`, `TWAIN_CORRUPTION` (as for `twain_iter_seek`).
///
/// # Safety
/// As `twain_iter_seek_to_first`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_next(
    iter: *mut twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        movement(iter, errmsg, |it| {
            it.entry()?;
            Ok(it.cursor.next())
        })
    }
}

/// Moves onto the previous key (not valid before the range's start). Errors as
/// `twain_iter_next`.
///
/// # Safety
/// As `twain_iter_seek_to_first`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_prev(
    iter: *mut twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises.
    unsafe {
        movement(iter, errmsg, |it| {
            it.entry()?;
            Ok(it.cursor.prev())
        })
    }
}

/// Whether the iterator is on an entry. False for NULL. Cannot fail.
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_valid(iter: *const twain_iterator) -> bool {
    // SAFETY: the caller's promise.
    guard_infallible(false, || {
        unsafe { iter.as_ref() }.is_some_and(|it| it.current.is_some())
    })
}

/// The key of the entry the iterator is on: `*key` points into the iterator (do not free
/// it) and stays valid until the iterator moves or is freed; `*key_len` is its length.
/// Both are NULL and 0 on an error.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` (NULL `iter`, `key` or `key_len`; an iterator not on
/// an entry).
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`; `key`, `key_len` and `errmsg` are NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_key(
    iter: *const twain_iterator,
    key: *mut *const u8,
    key_len: *mut usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe { borrow(iter, key, key_len, errmsg, |it| Ok(&it.entry()?.0)) }
}

/// The value of the entry the iterator is on, as `twain_iter_key` gives the key (borrowed,
/// valid until the iterator moves or is freed).
///
/// Errors: as `twain_iter_key`, and `TWAIN_INVALID_ARGUMENT` for a key-only iterator.
///
/// # Safety
/// As `twain_iter_key`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_value(
    iter: *const twain_iterator,
    value: *mut *const u8,
    value_len: *mut usize,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        borrow(iter, value, value_len, errmsg, |it| {
            if it.cursor.keys_only() {
                return Err(Failure::invalid("a key-only iterator has no values"));
            }
            Ok(&it.entry()?.1)
        })
    }
}

/// Hands C a view of bytes the iterator owns.
///
/// # Safety
/// As `twain_iter_key`.
unsafe fn borrow(
    iter: *const twain_iterator,
    ptr: *mut *const u8,
    len: *mut usize,
    errmsg: *mut *mut c_char,
    part: impl FnOnce(&twain_iterator) -> Result<&Vec<u8>, Failure>,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let (out, out_len) = (args::output(ptr, "data")?, args::output(len, "length")?);
            out.set(std::ptr::null());
            out_len.set(0);
            let bytes = part(args::object(iter, "iter")?)?;
            out.set(bytes.as_ptr());
            out_len.set(bytes.len());
            Ok(())
        })
    }
}

/// The error that ended the iteration, if one did (`TWAIN_OK` if none): after a step that
/// returned an error, the iterator is not valid and this reports the same error (with its
/// message in `*errmsg`) until the next seek. A loop can step without checking each code
/// and ask here once the iterator is no longer valid.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` for a NULL `iter`; otherwise the iteration's error.
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_status(
    iter: *const twain_iterator,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || match &args::object(iter, "iter")?.error {
            Some(f) => Err(f.clone()),
            None => Ok(()),
        })
    }
}

/// Frees an iterator. NULL is allowed (it does nothing).
///
/// # Safety
/// `iter` is NULL or a live `twain_iterator`, not used afterwards (nor the keys and
/// values it lent).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_iter_free(iter: *mut twain_iterator) {
    if !iter.is_null() {
        // SAFETY: the caller hands over a pointer from `Box::into_raw`.
        guard_infallible((), || drop(unsafe { Box::from_raw(iter) }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::{close_quietly, open_temp};
    use crate::error::{TWAIN_INVALID_ARGUMENT, TWAIN_OK};
    use crate::snapshot::{twain_snapshot_create, twain_snapshot_free};
    use crate::tests::call;

    const NULL: *mut *mut c_char = std::ptr::null_mut();

    /// The key (and value) the iterator is on, or `None`.
    fn at(it: *const twain_iterator) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        if !unsafe { twain_iter_valid(it) } {
            return None;
        }
        let (mut k, mut kn) = (std::ptr::null(), 0);
        assert_eq!(
            unsafe { twain_iter_key(it, &mut k, &mut kn, NULL) },
            TWAIN_OK
        );
        let key = unsafe { std::slice::from_raw_parts(k, kn) }.to_vec();
        let (mut v, mut vn) = (std::ptr::null(), 0);
        let value = (unsafe { twain_iter_value(it, &mut v, &mut vn, NULL) } == TWAIN_OK)
            .then(|| unsafe { std::slice::from_raw_parts(v, vn) }.to_vec());
        Some((key, value))
    }

    fn key_at(it: *const twain_iterator) -> Option<Vec<u8>> {
        at(it).map(|(k, _)| k)
    }

    #[test]
    fn moves_like_a_leveldb_iterator() {
        let (_dir, db) = open_temp();
        for k in ["a", "b", "c", "d"] {
            unsafe { (*db).db.put(k, k.repeat(3)).unwrap() };
        }
        let mut it = std::ptr::null_mut();
        let r = call(|e| unsafe {
            twain_iter_create(db, b"b".as_ptr(), 1, b"d".as_ptr(), 1, false, &mut it, e)
        });
        assert_eq!(r, (TWAIN_OK, None));
        assert_eq!(at(it), None, "unpositioned until a seek");
        unsafe {
            assert_eq!(twain_iter_seek_to_first(it, NULL), TWAIN_OK);
            assert_eq!(at(it), Some((b"b".to_vec(), Some(b"bbb".to_vec()))));
            assert_eq!(twain_iter_next(it, NULL), TWAIN_OK);
            assert_eq!(key_at(it), Some(b"c".to_vec()));
            assert_eq!(twain_iter_prev(it, NULL), TWAIN_OK);
            assert_eq!(key_at(it), Some(b"b".to_vec()));
            assert_eq!(twain_iter_next(it, NULL), TWAIN_OK);
            assert_eq!(twain_iter_next(it, NULL), TWAIN_OK);
            assert_eq!(key_at(it), None, "d is outside [b, d)");
            assert_eq!(twain_iter_seek_to_last(it, NULL), TWAIN_OK);
            assert_eq!(key_at(it), Some(b"c".to_vec()));
            assert_eq!(twain_iter_prev(it, NULL), TWAIN_OK);
            assert_eq!(twain_iter_prev(it, NULL), TWAIN_OK);
            assert_eq!(key_at(it), None);
            assert_eq!(twain_iter_seek(it, b"bb".as_ptr(), 2, NULL), TWAIN_OK);
            assert_eq!(key_at(it), Some(b"c".to_vec()));
            assert_eq!(
                twain_iter_seek_for_prev(it, b"bb".as_ptr(), 2, NULL),
                TWAIN_OK
            );
            assert_eq!(key_at(it), Some(b"b".to_vec()));
            assert_eq!(twain_iter_seek(it, b"z".as_ptr(), 1, NULL), TWAIN_OK);
            assert_eq!(key_at(it), None);
            assert_eq!(twain_iter_status(it, NULL), TWAIN_OK);
            twain_iter_free(it);
        }
        close_quietly(db);
    }

    #[test]
    fn key_only_iterators_have_no_values() {
        let (_dir, db) = open_temp();
        unsafe { (*db).db.put("k", "v").unwrap() };
        let mut it = std::ptr::null_mut();
        let r = call(|e| unsafe {
            twain_iter_create(
                db,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                true,
                &mut it,
                e,
            )
        });
        assert_eq!(r.0, TWAIN_OK);
        unsafe { twain_iter_seek_to_first(it, NULL) };
        assert_eq!(at(it), Some((b"k".to_vec(), None)));
        let (mut v, mut n) = (std::ptr::null(), 0);
        let (code, msg) = call(|e| unsafe { twain_iter_value(it, &mut v, &mut n, e) });
        assert_eq!(code, TWAIN_INVALID_ARGUMENT);
        assert!(msg.unwrap().contains("key-only"));
        unsafe { twain_iter_free(it) };
        close_quietly(db);
    }

    #[test]
    fn a_snapshot_iterator_outlives_its_snapshot_handle() {
        let (_dir, db) = open_temp();
        unsafe { (*db).db.put("a", "1").unwrap() };
        let mut s = std::ptr::null_mut();
        assert_eq!(unsafe { twain_snapshot_create(db, &mut s, NULL) }, TWAIN_OK);
        unsafe { (*db).db.put("b", "2").unwrap() };
        let mut it = std::ptr::null_mut();
        let null = std::ptr::null();
        let code = unsafe { twain_snapshot_iter_create(s, null, 0, null, 0, false, &mut it, NULL) };
        assert_eq!(code, TWAIN_OK);
        unsafe { twain_snapshot_free(s) };
        unsafe { twain_iter_seek_to_last(it, NULL) };
        assert_eq!(key_at(it), Some(b"a".to_vec()));
        unsafe { twain_iter_free(it) };
        close_quietly(db);
    }

    #[test]
    fn bad_arguments_are_refused() {
        let (_dir, db) = open_temp();
        let null = std::ptr::null::<u8>();
        let mut it: *mut twain_iterator = std::ptr::dangling_mut();
        let r = call(|e| unsafe {
            twain_iter_create(std::ptr::null(), null, 0, null, 0, false, &mut it, e)
        });
        assert_eq!((r.0, it.is_null()), (TWAIN_INVALID_ARGUMENT, true));
        let r = call(|e| unsafe { twain_iter_create(db, null, 2, null, 0, false, &mut it, e) });
        assert_eq!(r.0, TWAIN_INVALID_ARGUMENT);
        let r = call(|e| unsafe {
            twain_iter_create(db, null, 0, null, 0, false, std::ptr::null_mut(), e)
        });
        assert_eq!(r.0, TWAIN_INVALID_ARGUMENT);
        let r = call(|e| unsafe {
            twain_snapshot_iter_create(std::ptr::null(), null, 0, null, 0, false, &mut it, e)
        });
        assert_eq!(r.0, TWAIN_INVALID_ARGUMENT);
        let long = vec![0u8; twain::MAX_KEY_SIZE + 1];
        let r = call(|e| unsafe {
            twain_iter_create(db, long.as_ptr(), long.len(), null, 0, false, &mut it, e)
        });
        assert_eq!(r.0, TWAIN_INVALID_ARGUMENT);

        assert_eq!(
            unsafe { twain_iter_create(db, null, 0, null, 0, false, &mut it, NULL) },
            TWAIN_OK
        );
        let none = std::ptr::null_mut::<twain_iterator>();
        let (mut k, mut n) = (std::ptr::null(), 0);
        let cases = [
            call(|e| unsafe { twain_iter_next(it, e) }),
            call(|e| unsafe { twain_iter_prev(it, e) }),
            call(|e| unsafe { twain_iter_key(it, &mut k, &mut n, e) }),
            call(|e| unsafe { twain_iter_value(it, &mut k, &mut n, e) }),
            call(|e| unsafe { twain_iter_key(it, std::ptr::null_mut(), &mut n, e) }),
            call(|e| unsafe { twain_iter_seek(it, null, 1, e) }),
            call(|e| unsafe { twain_iter_seek_for_prev(it, null, 1, e) }),
            call(|e| unsafe { twain_iter_seek(none, null, 0, e) }),
            call(|e| unsafe { twain_iter_seek_for_prev(none, null, 0, e) }),
            call(|e| unsafe { twain_iter_seek_to_first(none, e) }),
            call(|e| unsafe { twain_iter_seek_to_last(none, e) }),
            call(|e| unsafe { twain_iter_next(none, e) }),
            call(|e| unsafe { twain_iter_prev(none, e) }),
            call(|e| unsafe { twain_iter_key(none, &mut k, &mut n, e) }),
            call(|e| unsafe { twain_iter_status(none, e) }),
        ];
        for (code, msg) in cases {
            assert_eq!(code, TWAIN_INVALID_ARGUMENT, "{msg:?}");
            assert!(msg.is_some());
        }
        assert!(!unsafe { twain_iter_valid(none) });
        unsafe { twain_iter_free(it) };
        unsafe { twain_iter_free(none) };
        close_quietly(db);
    }
}

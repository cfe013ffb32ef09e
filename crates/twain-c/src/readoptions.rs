//! `twain_readoptions`: how a read goes (whether it fills the block cache, whether an
//! iterator reads values ahead), and the reads that take them (`twain_get_opt`,
//! `twain_snapshot_get_opt`, `twain_iter_create_opt`, `twain_snapshot_iter_create_opt`).

use crate::args;
use crate::db::{read_into, twain_db};
use crate::error::{guard, guard_infallible, twain_status};
use crate::iter::{create, twain_iterator};
use crate::snapshot::twain_snapshot;
use std::ffi::c_char;
use std::sync::Arc;

/// Options of reads, starting from twain's defaults (fill the cache, prefetch). Owned by
/// the caller, who frees it with `twain_readoptions_free`; a read copies what it needs, so
/// it may be freed or changed right after. Reads on several threads may share one; a
/// setter must not run beside any use of it.
#[derive(Debug, Default)]
pub struct twain_readoptions {
    pub(crate) opts: twain::ReadOptions,
}

/// New read options with twain's defaults. Free with `twain_readoptions_free`. Cannot fail
/// (NULL only if twain has a bug).
#[unsafe(no_mangle)]
pub extern "C" fn twain_readoptions_create() -> *mut twain_readoptions {
    guard_infallible(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(twain_readoptions::default()))
    })
}

/// Whether table blocks the read loads from disk enter the block cache (default true).
/// Blocks already cached are used either way; a one-off scan over cold data sets it false so
/// that it does not evict the working set.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` for NULL `options`.
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_readoptions_set_fill_cache(
    options: *mut twain_readoptions,
    on: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let o = args::object_mut(options, "read options")?;
            o.opts = o.opts.fill_cache(on);
            Ok(())
        })
    }
}

/// Whether an iterator may read separated values ahead of its cursor with the database's
/// prefetch threads (default true; the `prefetch_threads` option). Point reads ignore it.
///
/// Errors: `TWAIN_INVALID_ARGUMENT` for NULL `options`.
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`; `errmsg` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_readoptions_set_prefetch(
    options: *mut twain_readoptions,
    on: bool,
    errmsg: *mut *mut c_char,
) -> twain_status {
    // SAFETY: the caller's promises, as the checks in `args` require.
    unsafe {
        guard(errmsg, || {
            let o = args::object_mut(options, "read options")?;
            o.opts = o.opts.prefetch(on);
            Ok(())
        })
    }
}

/// Frees read options made by `twain_readoptions_create`. NULL is allowed (it does
/// nothing).
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_readoptions_free(options: *mut twain_readoptions) {
    if !options.is_null() {
        // SAFETY: the caller hands over a pointer from `Box::into_raw`.
        guard_infallible((), || drop(unsafe { Box::from_raw(options) }));
    }
}

/// As `twain_get`, reading with `options`.
///
/// Errors: as `twain_get`, and `TWAIN_INVALID_ARGUMENT` for NULL `options`.
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`; the rest as `twain_get`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_get_opt(
    db: *const twain_db,
    options: *const twain_readoptions,
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
                let o = args::object(options, "read options")?;
                let key = args::key(key, key_len, "key")?;
                Ok(db.db.get_opt(key, &o.opts)?)
            })
        })
    }
}

/// As `twain_snapshot_get`, reading with `options`.
///
/// Errors: as `twain_snapshot_get`, and `TWAIN_INVALID_ARGUMENT` for NULL `options`.
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`; the rest as `twain_snapshot_get`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn twain_snapshot_get_opt(
    snapshot: *const twain_snapshot,
    options: *const twain_readoptions,
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
                let o = args::object(options, "read options")?;
                let key = args::key(key, key_len, "key")?;
                Ok(snapshot.snapshot.get_opt(key, &o.opts)?)
            })
        })
    }
}

/// As `twain_iter_create`, reading with `options`.
///
/// Errors: as `twain_iter_create`, and `TWAIN_INVALID_ARGUMENT` for NULL `options`.
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`; the rest as `twain_iter_create`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn twain_iter_create_opt(
    db: *const twain_db,
    options: *const twain_readoptions,
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
                let db = args::object(db, "db")?;
                let o = args::object(options, "read options")?;
                Ok((db.db.range_opt(range, &o.opts), None))
            })
        })
    }
}

/// As `twain_snapshot_iter_create`, reading with `options`.
///
/// Errors: as `twain_snapshot_iter_create`, and `TWAIN_INVALID_ARGUMENT` for NULL
/// `options`.
///
/// # Safety
/// `options` is NULL or a live `twain_readoptions`; the rest as
/// `twain_snapshot_iter_create`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn twain_snapshot_iter_create_opt(
    snapshot: *const twain_snapshot,
    options: *const twain_readoptions,
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
                let o = args::object(options, "read options")?;
                Ok((snap.range_opt(range, &o.opts), Some(snap)))
            })
        })
    }
}

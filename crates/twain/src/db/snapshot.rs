//! Snapshots: a sequence number that compaction promises to keep readable.

use super::{DbInner, DbIterator, bounds, lock, prefix_bounds, read};
use crate::key::SeqNo;
use crate::{ReadOptions, Result};
use std::ops::RangeBounds;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// A consistent read view of the database at one moment. Thread-safe; keeps the versions
/// it can see alive until dropped (so drop snapshots you no longer need).
pub struct Snapshot {
    inner: Arc<DbInner>,
    seq: SeqNo,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot").field("seq", &self.seq).finish()
    }
}

impl Snapshot {
    pub(crate) fn new(inner: Arc<DbInner>) -> Snapshot {
        let mut snaps = lock(&inner.snapshots);
        let seq = inner.visible_seq.load(Ordering::Acquire);
        *snaps.entry(seq).or_insert(0) += 1;
        drop(snaps);
        Snapshot { inner, seq }
    }

    /// Whether `key` has a value in the snapshot, without reading a separated value (see
    /// [`Db::contains_key`](crate::Db::contains_key)).
    ///
    /// # Errors
    ///
    /// As [`Db::expiry`](crate::Db::expiry).
    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        let sv = self.inner.super_version();
        let found = super::expiry::expiry_in(&self.inner, &sv, self.seq, key.as_ref())?;
        Ok(found != crate::KeyExpiry::Missing)
    }

    /// The sequence number the snapshot reads at.
    pub fn sequence(&self) -> SeqNo {
        self.seq
    }

    /// The value of `key` as of the snapshot.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.get_opt(key, &ReadOptions::default())
    }

    /// The value of `key` as of the snapshot, read with `opts` (see [`ReadOptions`]).
    pub fn get_opt(&self, key: impl AsRef<[u8]>, opts: &ReadOptions) -> Result<Option<Vec<u8>>> {
        read::get(&self.inner, key.as_ref(), self.seq, opts)
    }

    /// The value of `key` as of the snapshot, shared rather than copied
    /// ([`Db::get_pinned`](super::Db::get_pinned)).
    pub fn get_pinned(&self, key: impl AsRef<[u8]>) -> Result<Option<bytes::Bytes>> {
        self.get_pinned_opt(key, &ReadOptions::default())
    }

    /// As [`Snapshot::get_pinned`], read with `opts` (see [`ReadOptions`]).
    pub fn get_pinned_opt(
        &self,
        key: impl AsRef<[u8]>,
        opts: &ReadOptions,
    ) -> Result<Option<bytes::Bytes>> {
        read::get_pinned(&self.inner, key.as_ref(), self.seq, opts)
    }

    /// The values of `keys` as of the snapshot, in order ([`Db::multi_get`](super::Db::multi_get)).
    pub fn multi_get<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<Vec<Option<Vec<u8>>>> {
        let keys: Vec<&[u8]> = keys.iter().map(AsRef::as_ref).collect();
        let sv = self.inner.super_version();
        super::multi_get::multi_get(&self.inner, &sv, self.seq, &keys)
    }

    /// Iterates over every key as of the snapshot.
    pub fn iter(&self) -> DbIterator {
        self.range::<&[u8], _>(..)
    }

    /// Iterates over the keys in `range` as of the snapshot.
    pub fn range<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> DbIterator {
        self.range_opt(range, &ReadOptions::default())
    }

    /// Iterates over the keys in `range` as of the snapshot, reading with `opts` (see
    /// [`ReadOptions`]).
    pub fn range_opt<K: AsRef<[u8]>, R: RangeBounds<K>>(
        &self,
        range: R,
        opts: &ReadOptions,
    ) -> DbIterator {
        let bounds = bounds(&range);
        let sv = self.inner.super_version();
        DbIterator::new(Arc::clone(&self.inner), sv, self.seq, bounds, opts)
    }

    /// Iterates over the keys starting with `prefix` as of the snapshot.
    pub fn prefix(&self, prefix: impl AsRef<[u8]>) -> DbIterator {
        self.prefix_opt(prefix, &ReadOptions::default())
    }

    /// Iterates over the keys starting with `prefix` as of the snapshot, reading with
    /// `opts` (see [`ReadOptions`]).
    pub fn prefix_opt(&self, prefix: impl AsRef<[u8]>, opts: &ReadOptions) -> DbIterator {
        let bounds = prefix_bounds(prefix.as_ref());
        let sv = self.inner.super_version();
        DbIterator::new(Arc::clone(&self.inner), sv, self.seq, bounds, opts)
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        let mut snaps = lock(&self.inner.snapshots);
        if let Some(n) = snaps.get_mut(&self.seq) {
            *n -= 1;
            if *n == 0 {
                snaps.remove(&self.seq);
            }
        }
    }
}

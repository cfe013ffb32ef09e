//! Iteration without reading values: keys only ([`Keys`]), or entries whose value is read
//! when asked ([`Entries`] of [`Entry`]). Both are the same seekable cursor as
//! [`DbIterator`], over its range and at its view.

use super::iter::Found;
use super::{DbInner, DbIterator, SuperVersion, read};
use crate::Result;
use crate::key::SeqNo;
use std::path::Path;
use std::sync::Arc;

/// Iterates over keys only: no value file is read. Made by [`Db::keys`](crate::Db::keys)
/// or [`DbIterator::into_keys`]; `Send`, not thread-safe to share.
#[derive(Debug)]
pub struct Keys(DbIterator);

/// Iterates over [`Entry`]s whose values are read only when asked. Made by
/// [`Db::entries`](crate::Db::entries) or [`DbIterator::into_entries`]; `Send`, not
/// thread-safe to share.
#[derive(Debug)]
pub struct Entries(DbIterator);

/// A key and a way to its value, yielded by [`Entries`]. An inline value is held; a
/// separated value is read from its value file by [`value`](Self::value), each time it
/// is called. Holds the iterator's view of the database (its memtables and files) until
/// dropped. `Send + Sync`.
pub struct Entry {
    key: Vec<u8>,
    found: Found,
    inner: Arc<DbInner>,
    sv: Arc<SuperVersion>,
    seq: SeqNo,
    now: u64,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("key", &self.key)
            .field("separated", &self.is_separated())
            .finish()
    }
}

impl Entry {
    /// The key.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Whether the value lives in a value file (reading it is an I/O).
    pub fn is_separated(&self) -> bool {
        self.found.is_handle()
    }

    /// The value: read from its value file if it is separated (every call reads).
    pub fn value(&self) -> Result<Vec<u8>> {
        let v = read::resolve(
            &self.inner,
            &self.sv,
            self.seq,
            self.now,
            Path::new("iterator"),
            &self.found.ikey,
            self.found.value.clone(),
            read::Reader::Scan(None),
        )?;
        Ok(v.map(read::into_vec).unwrap_or_default())
    }

    /// When the pair expires, in milliseconds since the Unix epoch by the database's clock
    /// (see [`Db::put_with_expiry`](crate::Db::put_with_expiry)); `None` if it never does.
    ///
    /// # Errors
    ///
    /// [`Error::Corruption`](crate::Error::Corruption) if the entry is flagged as expiring
    /// but too short to hold the time (the iterator reports it first).
    pub fn expires_at(&self) -> Result<Option<u64>> {
        let p = crate::key::ParsedKey::parse(&self.found.ikey);
        crate::key::split_expiry(p.kind, &self.found.value)
            .map(|(expires_at, _)| expires_at)
            .map_err(|_| {
                crate::Error::corruption(
                    Path::new("iterator"),
                    0,
                    "an expiring entry too short for its expiry time",
                )
            })
    }

    /// The key, dropping the rest.
    pub fn into_key(self) -> Vec<u8> {
        self.key
    }
}

impl DbIterator {
    /// This iterator's cursor and range, yielding keys only.
    pub fn into_keys(mut self) -> Keys {
        self.unalign();
        Keys(self)
    }

    /// This iterator's cursor and range, yielding entries whose value is read when asked.
    pub fn into_entries(mut self) -> Entries {
        self.unalign();
        Entries(self)
    }
}

/// The seeks of an iterator shape wrapping a [`DbIterator`] (`Keys`, `Entries`,
/// `Pinned`).
macro_rules! seek_methods {
    ($ty:ty) => {
        impl $ty {
            /// Positions the cursor so that `next` yields the first key `>= key` in the
            /// range (see [`DbIterator::seek`](crate::DbIterator::seek)).
            pub fn seek(&mut self, key: impl AsRef<[u8]>) {
                self.0.seek(key);
            }

            /// Positions the cursor so that `prev` yields the last key `<= key` in the
            /// range (see [`DbIterator::seek_for_prev`](crate::DbIterator::seek_for_prev)).
            pub fn seek_for_prev(&mut self, key: impl AsRef<[u8]>) {
                self.0.seek_for_prev(key);
            }

            /// Positions the cursor before the range.
            pub fn seek_to_first(&mut self) {
                self.0.seek_to_first();
            }

            /// Positions the cursor past the range.
            pub fn seek_to_last(&mut self) {
                self.0.seek_to_last();
            }
        }
    };
}
pub(super) use seek_methods;

/// The cursor methods, shared by both shapes: `$item` turns a found entry into an item.
macro_rules! cursor_methods {
    ($ty:ty, $item:ty, $make:expr) => {
        seek_methods!($ty);

        impl $ty {
            /// Steps the cursor back (see [`DbIterator::prev`]).
            pub fn prev(&mut self) -> Option<Result<$item>> {
                let r = self.0.prev_found_resumed();
                let make = $make;
                let r = r.map(|f| f.map(|f| make(&self.0, f)));
                self.0.finish_cursor(r)
            }
        }

        impl Iterator for $ty {
            type Item = Result<$item>;

            fn next(&mut self) -> Option<Self::Item> {
                if self.0.is_failed() {
                    return None;
                }
                let r = self.0.next_found();
                let make = $make;
                let r = r.map(|f| f.map(|f| make(&self.0, f)));
                self.0.finish_cursor(r)
            }
        }

        impl DoubleEndedIterator for $ty {
            fn next_back(&mut self) -> Option<Self::Item> {
                if self.0.is_failed() {
                    return None;
                }
                let r = self.0.next_back_found();
                let make = $make;
                let r = r.map(|f| f.map(|f| make(&self.0, f)));
                self.0.finish(r)
            }
        }
    };
}

cursor_methods!(Keys, Vec<u8>, |_: &DbIterator, f: Found| f
    .user_key()
    .to_vec());

cursor_methods!(Entries, Entry, |it: &DbIterator, f: Found| {
    let (inner, sv, seq, now) = it.view();
    Entry {
        key: f.user_key().to_vec(),
        found: f,
        inner: Arc::clone(inner),
        sv: Arc::clone(sv),
        seq,
        now,
    }
});

//! The memtable: recent writes, sorted by internal key, in a concurrent skiplist.
//!
//! Values are stored as they will be in SSTables: inline bytes, an encoded value handle,
//! or nothing for a tombstone (the kind is in the key's trailer). One writer (the group
//! commit leader) inserts while any number of readers look up and iterate.

use crate::Result;
use crate::iter::InternalIterator;
use crate::key::{InternalKey, InternalKeyRef, ParsedKey};
use crate::vlog::LogPosition;
use crossbeam_skiplist::SkipMap;
use crossbeam_skiplist::map::Entry;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Per-entry bookkeeping bytes counted on top of key and value (node, pointers, boxes).
const ENTRY_OVERHEAD: usize = 80;

/// A sorted in-memory table of internal entries. Thread-safe (`Send + Sync`).
pub struct Memtable {
    id: u64,
    map: SkipMap<InternalKey, Box<[u8]>>,
    bytes: AtomicUsize,
    entries: AtomicU64,
    /// Where the value log ended when this memtable was frozen: once it is flushed,
    /// everything before this position is in SSTables.
    frozen_at: OnceLock<LogPosition>,
}

impl std::fmt::Debug for Memtable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memtable")
            .field("id", &self.id)
            .field("entries", &self.len())
            .field("bytes", &self.approximate_bytes())
            .field("frozen_at", &self.frozen_at.get())
            .finish()
    }
}

impl Memtable {
    /// An empty memtable.
    pub fn new(id: u64) -> Memtable {
        Memtable {
            id,
            map: SkipMap::new(),
            bytes: AtomicUsize::new(0),
            entries: AtomicU64::new(0),
            frozen_at: OnceLock::new(),
        }
    }

    /// An identifier, increasing with creation order.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Inserts an entry. `ikey` is an encoded internal key.
    pub fn insert(&self, ikey: Vec<u8>, value: &[u8]) {
        let added = ikey.len() + value.len() + ENTRY_OVERHEAD;
        self.map
            .insert(InternalKey(ikey.into_boxed_slice()), value.into());
        self.bytes.fetch_add(added, Ordering::Relaxed);
        self.entries.fetch_add(1, Ordering::Relaxed);
    }

    /// The first entry at or after `lookup` (a [`lookup_key`](crate::key::lookup_key)) if it
    /// has the same user key: the newest version visible at the lookup's sequence.
    pub fn get(&self, lookup: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
        let entry = self
            .map
            .lower_bound(Bound::Included(InternalKeyRef::new(lookup)))?;
        let found = &entry.key().0;
        if ParsedKey::parse(found).user_key != ParsedKey::parse(lookup).user_key {
            return None;
        }
        Some((found.to_vec(), entry.value().to_vec()))
    }

    /// Bytes of memory the entries take, approximately.
    pub fn approximate_bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Number of entries.
    pub fn len(&self) -> u64 {
        self.entries.load(Ordering::Relaxed)
    }

    /// Whether the memtable holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records where the value log ended when the memtable was frozen.
    pub fn freeze(&self, at: LogPosition) {
        let _ = self.frozen_at.set(at);
    }

    /// Where the value log ended when the memtable was frozen, if it was.
    pub fn frozen_at(&self) -> Option<LogPosition> {
        self.frozen_at.get().copied()
    }

    /// A cursor over the entries.
    pub fn iter(self: &Arc<Self>) -> MemtableIter {
        MemtableIter {
            cell: Cursor::new(Arc::clone(self), |_| Position(None)),
        }
    }
}

struct Position<'a>(Option<Entry<'a, InternalKey, Box<[u8]>>>);

self_cell::self_cell!(
    struct Cursor {
        owner: Arc<Memtable>,
        #[covariant]
        dependent: Position,
    }
);

/// A cursor over a memtable; keeps the memtable alive.
pub struct MemtableIter {
    cell: Cursor,
}

impl MemtableIter {
    fn set(
        &mut self,
        pick: impl for<'a> FnOnce(
            &'a Memtable,
            Option<Entry<'a, InternalKey, Box<[u8]>>>,
        ) -> Option<Entry<'a, InternalKey, Box<[u8]>>>,
    ) {
        self.cell.with_dependent_mut(|mem, pos| {
            let cur = pos.0.take();
            pos.0 = pick(mem, cur);
        });
    }

    fn entry(&self) -> Option<&Entry<'_, InternalKey, Box<[u8]>>> {
        self.cell.borrow_dependent().0.as_ref()
    }
}

impl InternalIterator for MemtableIter {
    fn valid(&self) -> bool {
        self.entry().is_some()
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.set(|m, _| m.map.front());
        Ok(())
    }

    fn seek_to_last(&mut self) -> Result<()> {
        self.set(|m, _| m.map.back());
        Ok(())
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.set(|m, _| {
            m.map
                .lower_bound(Bound::Included(InternalKeyRef::new(target)))
        });
        Ok(())
    }

    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()> {
        self.set(|m, _| {
            m.map
                .upper_bound(Bound::Included(InternalKeyRef::new(target)))
        });
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        self.set(|_, cur| cur.and_then(|e| e.next()));
        Ok(())
    }

    fn prev(&mut self) -> Result<()> {
        self.set(|_, cur| cur.and_then(|e| e.prev()));
        Ok(())
    }

    fn key(&self) -> &[u8] {
        self.entry().map(|e| &e.key().0[..]).unwrap_or_default()
    }

    fn value(&self) -> &[u8] {
        self.entry().map(|e| &e.value()[..]).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{EntryKind, internal_key, lookup_key};

    fn put(m: &Memtable, k: &str, seq: u64, v: &str) {
        m.insert(
            internal_key(k.as_bytes(), seq, EntryKind::Inline as u8),
            v.as_bytes(),
        );
    }

    #[test]
    fn get_sees_newest_visible_version() {
        let m = Memtable::new(1);
        put(&m, "k", 1, "one");
        put(&m, "k", 5, "five");
        put(&m, "l", 3, "other");
        let (k, v) = m.get(&lookup_key(b"k", 10)).unwrap();
        assert_eq!((ParsedKey::parse(&k).seq, v.as_slice()), (5, &b"five"[..]));
        let (_, v) = m.get(&lookup_key(b"k", 4)).unwrap();
        assert_eq!(v, b"one");
        assert!(m.get(&lookup_key(b"k", 0)).is_none());
        assert!(m.get(&lookup_key(b"j", 10)).is_none());
    }

    #[test]
    fn cursor_moves_both_ways() {
        let m = Arc::new(Memtable::new(1));
        for (i, k) in ["a", "b", "c"].iter().enumerate() {
            put(&m, k, i as u64 + 1, k);
        }
        let mut it = m.iter();
        it.seek_to_first().unwrap();
        assert_eq!(ParsedKey::parse(it.key()).user_key, b"a");
        it.next().unwrap();
        it.next().unwrap();
        assert_eq!(it.value(), b"c");
        it.next().unwrap();
        assert!(!it.valid());
        it.seek_for_prev(&lookup_key(b"bb", 0)).unwrap();
        assert_eq!(it.value(), b"b");
        it.prev().unwrap();
        assert_eq!(it.value(), b"a");
        it.prev().unwrap();
        assert!(!it.valid());
        it.seek(&lookup_key(b"b", 100)).unwrap();
        assert_eq!(it.value(), b"b");
        it.seek_to_last().unwrap();
        assert_eq!(it.value(), b"c");
    }
}

//! The memtable: recent writes, sorted by internal key, in a concurrent skiplist.
//!
//! Values are stored as they will be in SSTables: inline bytes, an encoded value handle,
//! or nothing for a tombstone (the kind is in the key's trailer). One writer (the group
//! commit leader) inserts while any number of readers look up and iterate.

mod range_del;
mod skiplist;

pub use range_del::{MAX_RANGE_DELETIONS, RangeTombstone};

use crate::Result;
use crate::iter::InternalIterator;
use crate::key::{ParsedKey, SeqNo, compare_internal, internal_prefix};
use crate::vlog::{LogPosition, ValueFile};
use skiplist::{Cursor, SkipList};
use std::sync::{Arc, Mutex, OnceLock};

/// A sorted in-memory table of internal entries. Thread-safe (`Send + Sync`): inserts are
/// serialized inside, lookups and cursors never block.
pub struct Memtable {
    id: u64,
    list: SkipList,
    /// Where the value log ended when this memtable was frozen: once it is flushed,
    /// everything before this position is in SSTables.
    frozen_at: OnceLock<LogPosition>,
    /// The last sequence number the log held at the freeze position.
    frozen_seq: OnceLock<SeqNo>,
    /// Value files that handle fix-ups in this memtable point into: readers holding the
    /// memtable keep them on disk even after a later GC retires them.
    pinned: Mutex<Vec<Arc<ValueFile>>>,
    /// Range deletions written to this memtable.
    range_dels: range_del::RangeDels,
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
            list: SkipList::new(compare_internal, internal_prefix),
            frozen_at: OnceLock::new(),
            frozen_seq: OnceLock::new(),
            pinned: Mutex::new(Vec::new()),
            range_dels: range_del::RangeDels::default(),
        }
    }

    /// Keeps `file` alive as long as this memtable (a fix-up in it points into the file).
    pub fn pin(&self, file: &Arc<ValueFile>) {
        let mut pinned = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        if !pinned.iter().any(|f| Arc::ptr_eq(f, file)) {
            pinned.push(Arc::clone(file));
        }
    }

    /// A value file pinned by this memtable with the given number and epoch.
    pub fn pinned_file(&self, number: u64, epoch: u32) -> Option<Arc<ValueFile>> {
        let pinned = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        pinned
            .iter()
            .find(|f| f.number() == number && f.epoch() == epoch)
            .cloned()
    }

    /// An identifier, increasing with creation order.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Inserts an entry. `ikey` is an encoded internal key. An entry with an equal internal
    /// key inserted later is found first.
    pub fn insert(&self, ikey: &[u8], value: &[u8]) {
        self.list.insert(ikey, value);
    }

    /// The first entry at or after `lookup` (a [`lookup_key`](crate::key::lookup_key)) if it
    /// has the same user key: the newest version visible at the lookup's sequence.
    pub fn get(&self, lookup: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
        let c = self.list.seek(lookup);
        if !c.valid() || ParsedKey::parse(c.key()).user_key != ParsedKey::parse(lookup).user_key {
            return None;
        }
        Some((c.key().to_vec(), c.value().to_vec()))
    }

    /// Adds a range deletion of `[start, end)` at `seq`.
    pub fn delete_range(&self, start: &[u8], end: &[u8], seq: SeqNo) {
        self.range_dels.add(start, end, seq);
    }

    /// The newest range deletion visible at `read_seq` that hides `key@entry_seq`.
    pub fn range_hiding(&self, key: &[u8], entry_seq: SeqNo, read_seq: SeqNo) -> Option<SeqNo> {
        self.range_dels.hiding(key, entry_seq, read_seq)
    }

    /// Number of range deletions.
    pub fn range_deletion_count(&self) -> usize {
        self.range_dels.len()
    }

    /// Every range deletion, in sequence order.
    pub fn range_tombstones(&self) -> Vec<RangeTombstone> {
        self.range_dels.tombstones()
    }

    /// Bytes of memory the entries and range deletions take.
    pub fn approximate_bytes(&self) -> usize {
        self.list.memory_bytes() + self.range_dels.bytes()
    }

    /// Number of entries and range deletions.
    pub fn len(&self) -> u64 {
        (self.list.len() + self.range_dels.len()) as u64
    }

    /// Whether the memtable holds nothing: no entry and no range deletion.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.range_dels.len() == 0
    }

    /// Records where the value log ended when the memtable was frozen, and the last
    /// sequence number written before that position.
    pub fn freeze(&self, at: LogPosition, last_seq: SeqNo) {
        let _ = self.frozen_seq.set(last_seq);
        let _ = self.frozen_at.set(at);
    }

    /// The last sequence number written before the freeze position, if frozen.
    pub fn frozen_seq(&self) -> Option<SeqNo> {
        self.frozen_seq.get().copied()
    }

    /// Where the value log ended when the memtable was frozen, if it was.
    pub fn frozen_at(&self) -> Option<LogPosition> {
        self.frozen_at.get().copied()
    }

    /// A cursor over the entries.
    pub fn iter(self: &Arc<Self>) -> MemtableIter {
        MemtableIter {
            cell: CursorCell::new(Arc::clone(self), |m| m.list.none()),
        }
    }
}

self_cell::self_cell!(
    struct CursorCell {
        owner: Arc<Memtable>,
        #[covariant]
        dependent: Cursor,
    }
);

/// A cursor over a memtable; keeps the memtable alive.
pub struct MemtableIter {
    cell: CursorCell,
}

impl MemtableIter {
    fn set(&mut self, f: impl for<'a> FnOnce(&'a Memtable, Cursor<'a>) -> Cursor<'a>) {
        self.cell.with_dependent_mut(|mem, cur| *cur = f(mem, *cur));
    }

    fn cursor(&self) -> &Cursor<'_> {
        self.cell.borrow_dependent()
    }
}

impl InternalIterator for MemtableIter {
    fn valid(&self) -> bool {
        self.cursor().valid()
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.set(|m, _| m.list.first());
        Ok(())
    }

    fn seek_to_last(&mut self) -> Result<()> {
        self.set(|m, _| m.list.last());
        Ok(())
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.set(|m, _| m.list.seek(target));
        Ok(())
    }

    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()> {
        self.set(|m, _| m.list.seek_for_prev(target));
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        self.set(|_, c| c.next());
        Ok(())
    }

    fn prev(&mut self) -> Result<()> {
        self.set(|_, c| c.prev());
        Ok(())
    }

    fn key(&self) -> &[u8] {
        self.cursor().key()
    }

    fn value(&self) -> &[u8] {
        self.cursor().value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{EntryKind, internal_key, lookup_key};

    fn put(m: &Memtable, k: &str, seq: u64, v: &str) {
        m.insert(
            &internal_key(k.as_bytes(), seq, EntryKind::Inline as u8),
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

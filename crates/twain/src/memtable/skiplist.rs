//! An arena skiplist: one writer at a time, any number of lock-free readers.
//!
//! Nodes live in arena chunks that are freed only when the whole list is dropped, so a
//! node pointer stays valid for as long as the list does. A node is written completely
//! before it is published by a `Release` store into its predecessors' towers; readers load
//! tower pointers with `Acquire`, so they only ever see fully written nodes. Nodes are never
//! removed or changed after publication (apart from their towers gaining successors).
//!
//! Node layout (8-byte aligned): `key_len: u32 | value_len: u32 | height: u32 | pad: u32 |
//! prefix: u64 | tower: [AtomicPtr<Node>; height] | key | value`.
//!
//! `prefix` is the list's `prefix` function of the key, a number that orders keys as the
//! comparison does wherever two keys' prefixes differ: a search compares it first and reads
//! the key bytes only on a tie. With keys whose first bytes differ (the prefix of an
//! internal key is its user key's first 8 bytes) most steps of a search are one integer
//! comparison.

use std::cmp::Ordering;
use std::mem::{align_of, size_of};
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering as AtomicOrdering};

/// Tallest tower. With branching 4, enough for about 4^12 = 16M entries.
const MAX_HEIGHT: usize = 12;
/// One in `BRANCHING` nodes of height h also has height h + 1.
const BRANCHING: u64 = 4;
/// Arena chunk size; larger nodes get a chunk of their own.
const CHUNK: usize = 1 << 20;
/// Bytes of the fixed node header before the tower.
const HEADER: usize = 24;

/// The fixed header of a node. The tower and the bytes follow it in the arena.
#[repr(C)]
struct Node {
    key_len: u32,
    value_len: u32,
    height: u32,
    _pad: u32,
    prefix: u64,
}

const _: () = assert!(size_of::<Node>() == HEADER);

impl Node {
    /// REQUIRES: `node` points at a fully written node of this list.
    unsafe fn tower<'a>(node: *const Node, level: usize) -> &'a AtomicPtr<Node> {
        // SAFETY: the caller guarantees a valid node; level < height by construction at
        // every call site, and the tower directly follows the header.
        unsafe { &*((node as *const u8).add(HEADER) as *const AtomicPtr<Node>).add(level) }
    }

    /// REQUIRES: `node` points at a fully written node of this list.
    unsafe fn next(node: *const Node, level: usize) -> *mut Node {
        // SAFETY: forwarded from the caller.
        unsafe { Node::tower(node, level).load(AtomicOrdering::Acquire) }
    }

    /// REQUIRES: `node` points at a fully written node of this list.
    unsafe fn key<'a>(node: *const Node) -> &'a [u8] {
        // SAFETY: the key bytes follow the tower and were written before publication.
        unsafe {
            let h = (*node).height as usize;
            let start = (node as *const u8).add(HEADER + h * size_of::<AtomicPtr<Node>>());
            std::slice::from_raw_parts(start, (*node).key_len as usize)
        }
    }

    /// REQUIRES: `node` points at a fully written node of this list.
    unsafe fn value<'a>(node: *const Node) -> &'a [u8] {
        // SAFETY: the value bytes follow the key.
        unsafe {
            let key = Node::key(node);
            std::slice::from_raw_parts(key.as_ptr().add(key.len()), (*node).value_len as usize)
        }
    }
}

/// The writer's state: the arena and the height generator.
struct Writer {
    chunks: Vec<Box<[u64]>>,
    /// Next free byte in the current chunk, and bytes left in it.
    cursor: *mut u8,
    left: usize,
    used: usize,
    rng: u64,
}

// SAFETY: `cursor` points into a chunk owned by `chunks`; the writer is only ever used
// behind the list's mutex.
unsafe impl Send for Writer {}

impl Writer {
    /// Returns `size` bytes of 8-byte-aligned, zeroed arena memory that lives as long as
    /// the arena.
    fn alloc(&mut self, size: usize) -> *mut u8 {
        let size = size.next_multiple_of(align_of::<u64>());
        self.used += size;
        if size > self.left {
            let words = size.max(if size > CHUNK / 4 { size } else { CHUNK }) / 8;
            let mut chunk = vec![0u64; words].into_boxed_slice();
            let start = chunk.as_mut_ptr() as *mut u8;
            self.chunks.push(chunk);
            if size > CHUNK / 4 {
                // A big node gets its own chunk; keep filling the current one.
                return start;
            }
            self.cursor = start;
            self.left = words * 8;
        }
        let p = self.cursor;
        // SAFETY: `size <= left`, so the result stays inside the current chunk.
        self.cursor = unsafe { self.cursor.add(size) };
        self.left -= size;
        p
    }

    fn random_height(&mut self) -> usize {
        let mut h = 1;
        while h < MAX_HEIGHT {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            if !self.rng.is_multiple_of(BRANCHING) {
                break;
            }
            h += 1;
        }
        h
    }
}

/// A sorted map from byte keys to byte values ordered by `cmp`, allowing equal keys (a
/// later insert of an equal key is found first). Thread-safe: inserts are serialized by an
/// internal mutex; reads never lock.
pub struct SkipList {
    head: *const Node,
    height: AtomicUsize,
    len: AtomicUsize,
    writer: Mutex<Writer>,
    cmp: fn(&[u8], &[u8]) -> Ordering,
    prefix: fn(&[u8]) -> u64,
}

/// A key being searched for, with its prefix.
#[derive(Clone, Copy)]
struct Probe<'k> {
    key: &'k [u8],
    prefix: u64,
}

// SAFETY: every node is immutable after publication except for atomic tower slots, all
// node memory is owned by the arena inside `writer` and freed only on drop, and all
// mutation happens under the `writer` mutex.
unsafe impl Send for SkipList {}
// SAFETY: as above; readers only perform atomic loads and read immutable bytes.
unsafe impl Sync for SkipList {}

impl SkipList {
    /// An empty list ordered by `cmp`. `prefix` must agree with it: for any keys `a` and
    /// `b` with `prefix(a) != prefix(b)`, `cmp(a, b) == prefix(a).cmp(&prefix(b))`.
    pub fn new(cmp: fn(&[u8], &[u8]) -> Ordering, prefix: fn(&[u8]) -> u64) -> SkipList {
        let mut w = Writer {
            chunks: Vec::new(),
            cursor: ptr::null_mut(),
            left: 0,
            used: 0,
            rng: 0x853c_49e6_748f_ea9b,
        };
        let head = Self::new_node(&mut w, MAX_HEIGHT, b"", 0, b"");
        SkipList {
            head,
            height: AtomicUsize::new(1),
            len: AtomicUsize::new(0),
            writer: Mutex::new(w),
            cmp,
            prefix,
        }
    }

    /// Compares `node`'s key with `probe`: by prefix, and by the key bytes on a tie.
    /// REQUIRES: `node` is a published node of this list (not the head).
    #[inline]
    unsafe fn compare(&self, node: *const Node, probe: Probe<'_>) -> Ordering {
        // SAFETY: forwarded from the caller; the header was written before publication.
        match unsafe { (*node).prefix }.cmp(&probe.prefix) {
            // SAFETY: as above.
            Ordering::Equal => (self.cmp)(unsafe { Node::key(node) }, probe.key),
            decided => decided,
        }
    }

    fn probe<'k>(&self, key: &'k [u8]) -> Probe<'k> {
        Probe {
            key,
            prefix: (self.prefix)(key),
        }
    }

    fn new_node(w: &mut Writer, height: usize, key: &[u8], prefix: u64, value: &[u8]) -> *mut Node {
        let size = HEADER + height * size_of::<AtomicPtr<Node>>() + key.len() + value.len();
        let p = w.alloc(size) as *mut Node;
        // SAFETY: `p` is fresh, aligned, zeroed arena memory of `size` bytes; zeroed tower
        // slots are null pointers. Nobody else can see the node yet.
        unsafe {
            (*p).key_len = key.len() as u32;
            (*p).value_len = value.len() as u32;
            (*p).height = height as u32;
            (*p).prefix = prefix;
            let bytes = (p as *mut u8).add(HEADER + height * size_of::<AtomicPtr<Node>>());
            ptr::copy_nonoverlapping(key.as_ptr(), bytes, key.len());
            ptr::copy_nonoverlapping(value.as_ptr(), bytes.add(key.len()), value.len());
        }
        p
    }

    /// Bytes of arena memory used.
    pub fn memory_bytes(&self) -> usize {
        self.writer
            .lock()
            .map(|w| w.used)
            .unwrap_or_else(|e| e.into_inner().used)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len.load(AtomicOrdering::Relaxed)
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts `key -> value`, before any entry with an equal key.
    pub fn insert(&self, key: &[u8], value: &[u8]) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let probe = self.probe(key);
        let mut prev = [self.head; MAX_HEIGHT];
        let top = self.height.load(AtomicOrdering::Relaxed);
        let mut x = self.head;
        for level in (0..top).rev() {
            loop {
                // SAFETY: `x` is the head or a published node.
                let next = unsafe { Node::next(x, level) };
                // SAFETY: non-null tower pointers point at published nodes.
                if !next.is_null() && unsafe { self.compare(next, probe) } == Ordering::Less {
                    x = next;
                } else {
                    break;
                }
            }
            prev[level] = x;
        }
        let height = w.random_height();
        if height > top {
            // Readers that see the new height before the links find null and descend.
            self.height.store(height, AtomicOrdering::Relaxed);
        }
        let node = Self::new_node(&mut w, height, key, probe.prefix, value);
        for (level, &p) in prev.iter().enumerate().take(height) {
            // SAFETY: `p` and `node` are valid; the node is linked bottom-up, each level
            // published with Release after the node's own slot is set.
            unsafe {
                let succ = Node::tower(p, level).load(AtomicOrdering::Relaxed);
                Node::tower(node, level).store(succ, AtomicOrdering::Relaxed);
                Node::tower(p, level).store(node, AtomicOrdering::Release);
            }
        }
        self.len.fetch_add(1, AtomicOrdering::Relaxed);
    }

    /// Descends to the last node whose key compares below `key` (or `Equal` too, if
    /// `inclusive`), or the head if there is none. Also returns the successor observed at
    /// level 0 when the descent stopped: the first node not below `key` at that moment.
    ///
    /// IMPORTANT: callers that want "the first node >= key" must use that observed
    /// successor, not a fresh load of `before.next`: the writer may have linked a smaller
    /// node in between, which would be returned as if it were not below `key`.
    fn find_before(&self, key: &[u8], inclusive: bool) -> (*const Node, *const Node) {
        let probe = self.probe(key);
        let mut x = self.head;
        let mut succ: *const Node = ptr::null();
        for level in (0..self.height.load(AtomicOrdering::Relaxed)).rev() {
            loop {
                // SAFETY: `x` is the head or a published node.
                let next = unsafe { Node::next(x, level) };
                if next.is_null() {
                    succ = next;
                    break;
                }
                // SAFETY: a published node.
                let c = unsafe { self.compare(next, probe) };
                if c == Ordering::Less || (inclusive && c == Ordering::Equal) {
                    x = next;
                } else {
                    succ = next;
                    break;
                }
            }
        }
        (x, succ)
    }

    /// A cursor positioned at the first entry with key `>= key`.
    pub fn seek(&self, key: &[u8]) -> Cursor<'_> {
        let (_, first_not_below) = self.find_before(key, false);
        Cursor::at(self, first_not_below)
    }

    /// A cursor positioned at the last entry with key `<= key`.
    pub fn seek_for_prev(&self, key: &[u8]) -> Cursor<'_> {
        let (at, _) = self.find_before(key, true);
        Cursor::at(self, if at == self.head { ptr::null() } else { at })
    }

    /// A cursor at no entry.
    pub fn none(&self) -> Cursor<'_> {
        Cursor::at(self, ptr::null())
    }

    /// A cursor at the first entry.
    pub fn first(&self) -> Cursor<'_> {
        // SAFETY: the head is valid.
        Cursor::at(self, unsafe { Node::next(self.head, 0) })
    }

    /// A cursor at the last entry.
    pub fn last(&self) -> Cursor<'_> {
        let mut x = self.head;
        for level in (0..self.height.load(AtomicOrdering::Relaxed)).rev() {
            loop {
                // SAFETY: `x` is the head or a published node.
                let next = unsafe { Node::next(x, level) };
                if next.is_null() {
                    break;
                }
                x = next;
            }
        }
        Cursor::at(self, if x == self.head { ptr::null() } else { x })
    }
}

/// A position in a skiplist: an entry, or nowhere. Borrows the list.
#[derive(Clone, Copy)]
pub struct Cursor<'a> {
    list: &'a SkipList,
    node: *const Node,
}

// SAFETY: a cursor is a shared reference to the list plus a pointer to one of its
// published nodes, which are immutable and live as long as the list; the list is `Sync`.
unsafe impl Send for Cursor<'_> {}
// SAFETY: as above.
unsafe impl Sync for Cursor<'_> {}

impl<'a> Cursor<'a> {
    fn at(list: &'a SkipList, node: *const Node) -> Cursor<'a> {
        Cursor { list, node }
    }

    /// Whether the cursor is at an entry.
    pub fn valid(&self) -> bool {
        !self.node.is_null()
    }

    /// The entry's key. REQUIRES: `valid()`.
    pub fn key(&self) -> &'a [u8] {
        if self.node.is_null() {
            return &[];
        }
        // SAFETY: a non-null cursor points at a published node of `list`.
        unsafe { Node::key(self.node) }
    }

    /// The entry's value. REQUIRES: `valid()`.
    pub fn value(&self) -> &'a [u8] {
        if self.node.is_null() {
            return &[];
        }
        // SAFETY: as in `key`.
        unsafe { Node::value(self.node) }
    }

    /// The next entry.
    pub fn next(&self) -> Cursor<'a> {
        if self.node.is_null() {
            return *self;
        }
        // SAFETY: a published node.
        Cursor::at(self.list, unsafe { Node::next(self.node, 0) })
    }

    /// The previous entry (a search: there are no back links).
    pub fn prev(&self) -> Cursor<'a> {
        if self.node.is_null() {
            return *self;
        }
        let (before, _) = self.list.find_before(self.key(), false);
        Cursor::at(
            self.list,
            if before == self.list.head {
                ptr::null()
            } else {
                before
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::Arc;

    fn bytes_cmp(a: &[u8], b: &[u8]) -> Ordering {
        a.cmp(b)
    }

    #[test]
    fn ordered_iteration_and_seeks() {
        let l = SkipList::new(bytes_cmp, crate::key::byte_prefix);
        for k in [5u8, 1, 9, 3, 7] {
            l.insert(&[k], &[k * 2]);
        }
        let mut c = l.first();
        let mut got = Vec::new();
        while c.valid() {
            got.push((c.key()[0], c.value()[0]));
            c = c.next();
        }
        assert_eq!(got, vec![(1, 2), (3, 6), (5, 10), (7, 14), (9, 18)]);
        assert_eq!(l.seek(&[4]).key(), &[5]);
        assert_eq!(l.seek_for_prev(&[4]).key(), &[3]);
        assert!(!l.seek(&[10]).valid());
        assert!(!l.seek_for_prev(&[0]).valid());
        assert_eq!(l.last().key(), &[9]);
        assert_eq!(l.last().prev().key(), &[7]);
        assert!(!l.first().prev().valid());
    }

    #[test]
    fn equal_keys_newest_first_and_big_values() {
        let l = SkipList::new(bytes_cmp, crate::key::byte_prefix);
        l.insert(b"k", b"old");
        l.insert(b"k", &vec![7u8; CHUNK]);
        assert_eq!(l.seek(b"k").value().len(), CHUNK);
        assert_eq!(l.seek(b"k").next().value(), b"old");
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn readers_run_while_one_writer_inserts() {
        let l = Arc::new(SkipList::new(bytes_cmp, crate::key::byte_prefix));
        let writer = {
            let l = Arc::clone(&l);
            std::thread::spawn(move || {
                for i in 0..20_000u32 {
                    l.insert(&i.to_be_bytes(), &i.to_le_bytes());
                }
            })
        };
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let l = Arc::clone(&l);
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let mut c = l.first();
                        let mut prev: Option<Vec<u8>> = None;
                        while c.valid() {
                            let k = c.key().to_vec();
                            assert_eq!(
                                c.value(),
                                &u32::from_be_bytes(k[..4].try_into().unwrap()).to_le_bytes()
                            );
                            assert!(prev.as_ref().is_none_or(|p| p < &k));
                            prev = Some(k);
                            c = c.next();
                        }
                    }
                })
            })
            .collect();
        writer.join().unwrap();
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(l.len(), 20_000);
    }

    /// Regression: `seek` used to reload `before.next` after the descent, so a node the
    /// writer linked in between — smaller than the target — could be returned. Readers
    /// aim just past the key being inserted, where that window is.
    #[test]
    fn seek_never_returns_a_key_below_its_target_while_the_writer_inserts() {
        use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
        const N: u32 = 200_000;
        let l = Arc::new(SkipList::new(bytes_cmp, crate::key::byte_prefix));
        for i in (0..N).step_by(2) {
            l.insert(&i.to_be_bytes(), b"");
        }
        let stop = Arc::new(AtomicBool::new(false));
        let inserting = Arc::new(AtomicU32::new(1));
        let running = Arc::new(AtomicU32::new(0));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (l, stop, at, running) = (
                    Arc::clone(&l),
                    Arc::clone(&stop),
                    Arc::clone(&inserting),
                    Arc::clone(&running),
                );
                std::thread::spawn(move || {
                    let mut checked = 0u64;
                    loop {
                        // The key after the one being inserted: even, so it exists.
                        let target = (at.load(Relaxed) + 1).min(N - 2).to_be_bytes();
                        let c = l.seek(&target);
                        assert!(c.valid());
                        assert!(
                            c.key() >= &target[..],
                            "seek returned a key below its target"
                        );
                        checked += 1;
                        if checked == 1 {
                            running.fetch_add(1, Relaxed);
                        }
                        if stop.load(Relaxed) {
                            break;
                        }
                    }
                    checked
                })
            })
            .collect();
        // The writer starts once both readers run (a loaded machine may start a thread
        // late, which would leave it nothing to race).
        while running.load(Relaxed) < 2 {
            std::thread::yield_now();
        }
        for i in (1..N).step_by(2) {
            inserting.store(i, Relaxed);
            l.insert(&i.to_be_bytes(), b"");
        }
        stop.store(true, Relaxed);
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
    }

    /// Keys of up to 6 bytes of any value, or up to 12 bytes of a few values (so that many
    /// share their 8-byte prefix and the search falls back to the key bytes).
    fn keys() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..6),
            proptest::collection::vec(proptest::sample::select(vec![0u8, 1, 0xff]), 0..12),
        ]
    }

    proptest! {
        #[test]
        fn matches_a_sorted_vector(keys in proptest::collection::vec(keys(), 0..200),
                                   probe in keys()) {
            let l = SkipList::new(bytes_cmp, crate::key::byte_prefix);
            for k in &keys {
                l.insert(k, b"");
            }
            let mut sorted = keys.clone();
            sorted.sort();
            let mut c = l.first();
            for k in &sorted {
                prop_assert_eq!(c.key(), k.as_slice());
                c = c.next();
            }
            prop_assert!(!c.valid());
            let ge = sorted.iter().find(|k| k.as_slice() >= probe.as_slice());
            prop_assert_eq!(l.seek(&probe).valid().then(|| l.seek(&probe).key().to_vec()), ge.cloned());
            let le = sorted.iter().rev().find(|k| k.as_slice() <= probe.as_slice());
            prop_assert_eq!(l.seek_for_prev(&probe).valid().then(|| l.seek_for_prev(&probe).key().to_vec()), le.cloned());
        }
    }
}

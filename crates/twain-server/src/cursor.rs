//! [`Cursors`]: the SCAN cursors. A SCAN resumes after the last key it examined, but
//! clients treat the cursor as an unsigned 64-bit number (`redis-cli --scan`, redis-rs and
//! go-redis parse it as one, redis-py as an integer), and a key does not fit in one. So each
//! cursor handed out is a number that names the last key in this table.
//!
//! A cursor can be used once: using it removes it (the SCAN that used it hands out the next
//! one). The table holds at most `max_entries` cursors and `max_bytes` of keys; past that
//! the oldest are forgotten. The high 32 bits of every cursor are random per process, so a
//! cursor from an earlier run, or one forgotten, is refused rather than resuming somewhere
//! else. Thread-safe.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::Mutex;

/// The SCAN cursors. Thread-safe.
#[derive(Debug)]
pub struct Cursors {
    max_entries: usize,
    max_bytes: usize,
    /// The random high half of every cursor of this process (never 0, so no cursor is 0).
    nonce: u64,
    inner: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    /// Cursor -> the last key examined.
    keys: HashMap<u64, Vec<u8>>,
    /// Cursors in the order they were handed out; may hold used ones.
    order: VecDeque<u64>,
    bytes: usize,
    next: u32,
}

impl Cursors {
    /// A table of at most `max_entries` cursors and `max_bytes` of keys.
    pub fn new(max_entries: usize, max_bytes: usize) -> Cursors {
        let random = RandomState::new().hash_one(std::process::id());
        Cursors {
            max_entries: max_entries.max(1),
            max_bytes,
            nonce: (random | 1) << 32,
            inner: Mutex::new(Table::default()),
        }
    }

    /// Hands out a cursor that resumes after `last_key`.
    pub fn save(&self, last_key: Vec<u8>) -> u64 {
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        t.next = t.next.wrapping_add(1);
        let id = self.nonce | u64::from(t.next);
        t.bytes += last_key.len();
        if let Some(old) = t.keys.insert(id, last_key) {
            t.bytes -= old.len();
        }
        t.order.push_back(id);
        while t.keys.len() > self.max_entries || t.bytes > self.max_bytes {
            let Some(oldest) = t.order.pop_front() else {
                break;
            };
            if let Some(k) = t.keys.remove(&oldest) {
                t.bytes -= k.len();
            }
        }
        // Used cursors leave their ids behind in `order`: drop them once they dominate.
        if t.order.len() > 2 * t.keys.len() + 64 {
            let Table { keys, order, .. } = &mut *t;
            order.retain(|id| keys.contains_key(id));
        }
        id
    }

    /// The key after which cursor `id` resumes, removing it; `None` if it is unknown.
    pub fn take(&self, id: u64) -> Option<Vec<u8>> {
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let key = t.keys.remove(&id)?;
        t.bytes -= key.len();
        Some(key)
    }

    /// Number of cursors held.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys
            .len()
    }

    /// Whether no cursor is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_resumes_once() {
        let c = Cursors::new(10, 1000);
        let id = c.save(b"apple".to_vec());
        assert_ne!(id, 0);
        assert_eq!(c.take(id), Some(b"apple".to_vec()));
        assert_eq!(c.take(id), None);
        assert_eq!(c.take(12345), None);
    }

    #[test]
    fn the_oldest_cursors_are_forgotten_first() {
        let c = Cursors::new(3, 1000);
        let ids: Vec<u64> = (0..5u8).map(|i| c.save(vec![i])).collect();
        assert_eq!(c.len(), 3);
        assert_eq!(c.take(ids[0]), None);
        assert_eq!(c.take(ids[1]), None);
        assert_eq!(c.take(ids[4]), Some(vec![4]));
    }

    #[test]
    fn key_bytes_are_bounded() {
        let c = Cursors::new(100, 10);
        let a = c.save(vec![0; 6]);
        let b = c.save(vec![1; 6]);
        assert_eq!(c.take(a), None);
        assert_eq!(c.take(b), Some(vec![1; 6]));
    }

    #[test]
    fn used_cursors_do_not_accumulate() {
        let c = Cursors::new(10, 1 << 20);
        for i in 0..10_000u32 {
            let id = c.save(i.to_be_bytes().to_vec());
            assert!(c.take(id).is_some());
        }
        assert!(c.is_empty());
        let t = c.inner.lock().unwrap();
        assert!(t.order.len() <= 64 + 1, "{}", t.order.len());
    }
}

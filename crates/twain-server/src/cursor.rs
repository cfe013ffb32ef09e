//! [`Cursors`]: one connection's SCAN cursors. A SCAN resumes after the last key it
//! examined, but clients treat the cursor as an unsigned 64-bit number (`redis-cli --scan`,
//! redis-rs and go-redis parse it as one, redis-py as an integer), and a key does not fit in
//! one. So each cursor handed out is a number that names the last key in this table.
//!
//! Every connection owns its table (in its [`crate::session::Session`]): a cursor works only
//! on the connection that received it, so no client can use, invalidate or evict another's.
//! Cursors are random 64-bit numbers (never 0), so they cannot be guessed either. A cursor
//! can be used once: using it removes it (the SCAN that used it hands out the next one). A
//! table holds at most [`MAX_CURSORS`] cursors; past that the connection's own oldest is
//! forgotten, and a forgotten cursor is refused rather than resuming somewhere else. Keys
//! are at most 64 KiB, so a table holds at most `MAX_CURSORS` × 64 KiB of them.

use std::collections::{HashMap, VecDeque};

/// Most cursors one connection holds.
pub const MAX_CURSORS: usize = 16;

/// One connection's SCAN cursors. Not shared.
#[derive(Debug, Clone, Default)]
pub struct Cursors {
    /// Cursor -> the last key examined.
    keys: HashMap<u64, Vec<u8>>,
    /// Cursors in the order they were handed out; may hold used ones.
    order: VecDeque<u64>,
}

impl Cursors {
    /// An empty table.
    pub fn new() -> Cursors {
        Cursors::default()
    }

    /// Hands out a cursor that resumes after `last_key`, forgetting the oldest cursor if
    /// the table is full.
    pub fn save(&mut self, last_key: Vec<u8>) -> u64 {
        let id = loop {
            let id: u64 = rand::random();
            if id != 0 && !self.keys.contains_key(&id) {
                break id;
            }
        };
        self.keys.insert(id, last_key);
        self.order.push_back(id);
        while self.keys.len() > MAX_CURSORS {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.keys.remove(&oldest);
        }
        // Used cursors leave their ids behind in `order`: drop them once they dominate.
        if self.order.len() > 2 * MAX_CURSORS {
            let keys = &self.keys;
            self.order.retain(|id| keys.contains_key(id));
        }
        id
    }

    /// The key after which cursor `id` resumes, removing it; `None` if it is unknown.
    pub fn take(&mut self, id: u64) -> Option<Vec<u8>> {
        self.keys.remove(&id)
    }

    /// Number of cursors held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no cursor is held.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_resumes_once() {
        let mut c = Cursors::new();
        let id = c.save(b"apple".to_vec());
        assert_ne!(id, 0);
        assert_eq!(c.take(id), Some(b"apple".to_vec()));
        assert_eq!(c.take(id), None);
        assert_eq!(c.take(12345), None);
    }

    #[test]
    fn the_oldest_cursors_are_forgotten_first() {
        let mut c = Cursors::new();
        let ids: Vec<u64> = (0..MAX_CURSORS + 2)
            .map(|i| c.save(vec![i as u8]))
            .collect();
        assert_eq!(c.len(), MAX_CURSORS);
        assert_eq!(c.take(ids[0]), None);
        assert_eq!(c.take(ids[1]), None);
        assert_eq!(
            c.take(ids[MAX_CURSORS + 1]),
            Some(vec![(MAX_CURSORS + 1) as u8])
        );
    }

    #[test]
    fn cursors_are_not_sequential() {
        let mut c = Cursors::new();
        let a = c.save(vec![1]);
        let b = c.save(vec![2]);
        assert!(a.abs_diff(b) > 1 << 20, "{a} {b}");
    }

    #[test]
    fn used_cursors_do_not_accumulate() {
        let mut c = Cursors::new();
        for i in 0..10_000u32 {
            let id = c.save(i.to_be_bytes().to_vec());
            assert!(c.take(id).is_some());
        }
        assert!(c.is_empty());
        assert!(c.order.len() <= 2 * MAX_CURSORS + 1, "{}", c.order.len());
    }
}

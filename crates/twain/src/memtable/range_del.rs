//! Range deletions held by a memtable, and how readers judge a key by them.
//!
//! A range deletion `[start, end)` at sequence `t` hides every version of every key in the
//! range whose sequence is below `t`, for readers at `t` or later. It lives only in the
//! memtable its write went to (and in the log, for recovery): the flush that writes the
//! memtable out turns it into one point tombstone per key it hides
//! (`db::range_expand`), so tables never hold ranges.
//!
//! Readers do not search the list. A memtable keeps its deletions cut into disjoint
//! fragments, each with the newest sequence covering it, in a map by start key: judging a
//! key is one lookup. Deletions arrive in sequence order, so a new one is the newest
//! wherever it lies: it replaces the fragments it overlaps (keeping their parts outside it),
//! which leaves at most two more fragments per deletion — memory stays linear. Only a
//! reader older than a fragment's newest deletion (a snapshot taken before it) looks at the
//! list itself, for the newest deletion it can see; [`MAX_RANGE_DELETIONS`] per memtable
//! bounds that walk.

use crate::key::SeqNo;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::RwLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Range deletions a memtable holds before it is frozen (one group commit may pass it):
/// bounds what a snapshot's read and a flush spend on them. A batch holds at most this
/// many ([`WriteBatch`](crate::WriteBatch) validation).
pub const MAX_RANGE_DELETIONS: usize = 4096;

/// One range deletion: `[start, end)` at `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeTombstone {
    /// The first key deleted.
    pub start: Vec<u8>,
    /// The first key after the range (not deleted).
    pub end: Vec<u8>,
    /// The deletion's sequence number.
    pub seq: SeqNo,
}

impl RangeTombstone {
    fn covers(&self, key: &[u8]) -> bool {
        self.start.as_slice() <= key && key < self.end.as_slice()
    }
}

/// A memtable's range deletions.
#[derive(Debug, Default)]
pub(super) struct RangeDels {
    count: AtomicUsize,
    bytes: AtomicUsize,
    state: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Every deletion, in sequence order.
    tombstones: Vec<RangeTombstone>,
    /// Disjoint fragments by start key: `start -> (end, newest sequence covering it)`.
    fragments: BTreeMap<Vec<u8>, (Vec<u8>, SeqNo)>,
}

impl State {
    /// Adds `t`, newer than every deletion held.
    fn add_newest(&mut self, t: &RangeTombstone) {
        if t.start >= t.end {
            return;
        }
        // The fragment starting before `t.start` may reach into it; then every fragment
        // starting inside it.
        let before = self
            .fragments
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(t.start.as_slice())))
            .next_back()
            .filter(|(_, (end, _))| end.as_slice() > t.start.as_slice())
            .map(|(start, _)| start.clone());
        let inside: Vec<Vec<u8>> = self
            .fragments
            .range::<[u8], _>((
                Bound::Included(t.start.as_slice()),
                Bound::Excluded(t.end.as_slice()),
            ))
            .map(|(start, _)| start.clone())
            .collect();
        for start in before.into_iter().chain(inside) {
            let Some((end, seq)) = self.fragments.remove(&start) else {
                continue;
            };
            if start < t.start {
                self.fragments.insert(start, (t.start.clone(), seq));
            }
            if end > t.end {
                self.fragments.insert(t.end.clone(), (end, seq));
            }
        }
        self.fragments
            .insert(t.start.clone(), (t.end.clone(), t.seq));
    }

    fn hiding(&self, key: &[u8], entry_seq: SeqNo, read_seq: SeqNo) -> Option<SeqNo> {
        let (_, (end, newest)) = self
            .fragments
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()?;
        if key >= end.as_slice() {
            return None;
        }
        let seq = if *newest <= read_seq {
            *newest
        } else {
            // A reader older than the fragment's newest deletion: the newest it can see.
            let visible = self.tombstones.partition_point(|t| t.seq <= read_seq);
            self.tombstones[..visible]
                .iter()
                .rev()
                .find(|t| t.covers(key))?
                .seq
        };
        (seq > entry_seq).then_some(seq)
    }
}

impl RangeDels {
    pub(super) fn add(&self, start: &[u8], end: &[u8], seq: SeqNo) {
        let t = RangeTombstone {
            start: start.to_vec(),
            end: end.to_vec(),
            seq,
        };
        let mut state = self.state.write().unwrap_or_else(|e| e.into_inner());
        if state.tombstones.last().is_some_and(|last| last.seq >= seq) {
            // Not in sequence order (never, as writes and recovery go): rebuild in order.
            state.tombstones.push(t);
            state.tombstones.sort_by_key(|t| t.seq);
            let all = std::mem::take(&mut state.tombstones);
            state.fragments.clear();
            for t in &all {
                state.add_newest(t);
            }
            state.tombstones = all;
        } else {
            state.add_newest(&t);
            state.tombstones.push(t);
        }
        // A deletion adds at most two fragments (three keys each) besides its own entry.
        self.bytes
            .fetch_add(3 * (start.len() + end.len()) + 160, Ordering::Relaxed);
        // After the insert: a reader that sees the count finds the deletion.
        self.count.fetch_add(1, Ordering::Release);
    }

    pub(super) fn len(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The newest deletion visible at `read_seq` that hides `key@entry_seq`.
    pub(super) fn hiding(&self, key: &[u8], entry_seq: SeqNo, read_seq: SeqNo) -> Option<SeqNo> {
        if self.len() == 0 {
            return None;
        }
        let state = self.state.read().unwrap_or_else(|e| e.into_inner());
        state.hiding(key, entry_seq, read_seq)
    }

    /// Every deletion, in sequence order.
    pub(super) fn tombstones(&self) -> Vec<RangeTombstone> {
        if self.len() == 0 {
            return Vec::new();
        }
        let state = self.state.read().unwrap_or_else(|e| e.into_inner());
        state.tombstones.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(start: &str, end: &str, seq: SeqNo) -> RangeTombstone {
        RangeTombstone {
            start: start.into(),
            end: end.into(),
            seq,
        }
    }

    /// What a reader must see: the newest covering deletion it can see, if newer than
    /// the version.
    fn want(
        list: &[RangeTombstone],
        key: &str,
        entry_seq: SeqNo,
        read_seq: SeqNo,
    ) -> Option<SeqNo> {
        list.iter()
            .filter(|t| t.covers(key.as_bytes()))
            .map(|t| t.seq)
            .filter(|&s| s <= read_seq)
            .max()
            .filter(|&s| s > entry_seq)
    }

    #[test]
    fn lookups_answer_like_the_list() {
        let list = [
            t("b", "f", 5),
            t("d", "h", 10),
            t("a", "c", 20),
            t("x", "x", 22),
            t("g", "g1", 25),
            t("c", "e", 30),
            t("a", "z", 40),
            t("e0", "e5", 45),
        ];
        let r = RangeDels::default();
        let keys = [
            "", "a", "a0", "b", "c", "d", "e", "e0", "e4", "e5", "f", "g", "g0", "g1", "h", "x",
            "z",
        ];
        for (n, tomb) in list.iter().enumerate() {
            r.add(&tomb.start, &tomb.end, tomb.seq);
            let held = &list[..=n];
            for key in keys {
                for entry_seq in [0, 4, 5, 9, 10, 19, 22, 26, 39, 44] {
                    for read_seq in [0, 5, 9, 10, 20, 24, 25, 35, 42, 100] {
                        assert_eq!(
                            r.hiding(key.as_bytes(), entry_seq, read_seq),
                            want(held, key, entry_seq, read_seq),
                            "after {n}: {key}@{entry_seq} read at {read_seq}"
                        );
                    }
                }
            }
            // Disjoint, and never more than two fragments per deletion.
            let state = r.state.read().unwrap();
            let pieces: Vec<_> = state.fragments.iter().collect();
            assert!(pieces.windows(2).all(|w| w[0].1.0 <= *w[1].0));
            assert!(pieces.len() <= 2 * (n + 1));
        }
        assert_eq!(r.len(), list.len());
    }

    #[test]
    fn deletions_out_of_order_are_rebuilt_in_order() {
        let r = RangeDels::default();
        r.add(b"a", b"m", 9);
        r.add(b"c", b"z", 3);
        assert_eq!(r.hiding(b"d", 1, 100), Some(9));
        assert_eq!(r.hiding(b"n", 1, 100), Some(3));
        assert_eq!(r.hiding(b"d", 1, 5), Some(3));
        let seqs: Vec<SeqNo> = r.tombstones().iter().map(|t| t.seq).collect();
        assert_eq!(seqs, [3, 9]);
    }
}

//! Range deletions held by a memtable, and the view readers judge keys by.
//!
//! A range deletion `[start, end)` at sequence `t` hides every version of every key in the
//! range whose sequence is below `t`, for readers at `t` or later. It lives only in the
//! memtable its write went to (and in the log, for recovery): the flush that writes the
//! memtable out turns it into one point tombstone per key it hides
//! (`db::range_expand`), so tables never hold ranges.
//!
//! Readers do not search the list: it is cut into [`Fragments`], disjoint pieces of key
//! space each with the sequences of the deletions that cover it, so judging a key is one
//! binary search. A memtable builds its fragments when first asked after a change.

use crate::key::SeqNo;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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

/// Range deletions cut into disjoint fragments, sorted by start key.
#[derive(Debug, Default)]
pub struct Fragments {
    /// `(start, end)` of each fragment; fragments do not overlap.
    bounds: Vec<(Vec<u8>, Vec<u8>)>,
    /// The sequences of the deletions covering each fragment, ascending.
    seqs: Vec<Vec<SeqNo>>,
}

impl Fragments {
    /// Cuts `tombstones` (in any order, with distinct sequences) into fragments.
    pub fn build(tombstones: &[RangeTombstone]) -> Fragments {
        // Sweep the boundaries in key order, keeping the set of deletions open there.
        let mut events: Vec<(&[u8], bool, SeqNo)> = Vec::with_capacity(tombstones.len() * 2);
        for t in tombstones.iter().filter(|t| t.start < t.end) {
            events.push((&t.start, true, t.seq));
            events.push((&t.end, false, t.seq));
        }
        events.sort();
        let mut open = std::collections::BTreeSet::new();
        let mut out = Fragments::default();
        let mut i = 0;
        while i < events.len() {
            let at = events[i].0;
            while i < events.len() && events[i].0 == at {
                let (_, opens, seq) = events[i];
                if opens {
                    open.insert(seq);
                } else {
                    open.remove(&seq);
                }
                i += 1;
            }
            if let Some(&(next, _, _)) = events.get(i)
                && !open.is_empty()
            {
                out.bounds.push((at.to_vec(), next.to_vec()));
                out.seqs.push(open.iter().copied().collect());
            }
        }
        out
    }

    /// The newest deletion visible at `read_seq` that hides the version `key@entry_seq`:
    /// it covers `key` and is newer than the version.
    pub fn hiding(&self, key: &[u8], entry_seq: SeqNo, read_seq: SeqNo) -> Option<SeqNo> {
        let i = self
            .bounds
            .partition_point(|(start, _)| start.as_slice() <= key)
            .checked_sub(1)?;
        let (_, end) = self.bounds.get(i)?;
        if key >= end.as_slice() {
            return None;
        }
        let seqs = self.seqs.get(i)?;
        let visible = seqs.partition_point(|&s| s <= read_seq);
        let newest = *seqs.get(visible.checked_sub(1)?)?;
        (newest > entry_seq).then_some(newest)
    }

    /// Fragment `i` in key order: `(start, end, sequences ascending)`.
    pub fn get(&self, i: usize) -> Option<(&[u8], &[u8], &[SeqNo])> {
        let (start, end) = self.bounds.get(i)?;
        Some((start, end, self.seqs.get(i)?))
    }
}

/// A memtable's range deletions.
#[derive(Debug, Default)]
pub(super) struct RangeDels {
    count: AtomicUsize,
    bytes: AtomicUsize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    tombstones: Vec<RangeTombstone>,
    /// The fragments of `tombstones`, built when first asked for since the last insert.
    fragments: Option<Arc<Fragments>>,
}

impl RangeDels {
    pub(super) fn add(&self, start: &[u8], end: &[u8], seq: SeqNo) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.tombstones.push(RangeTombstone {
            start: start.to_vec(),
            end: end.to_vec(),
            seq,
        });
        state.fragments = None;
        self.bytes
            .fetch_add(start.len() + end.len() + 64, Ordering::Relaxed);
        // After the push: a reader that sees the count finds the deletion in the list.
        self.count.fetch_add(1, Ordering::Release);
    }

    pub(super) fn len(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    pub(super) fn fragments(&self) -> Option<Arc<Fragments>> {
        if self.len() == 0 {
            return None;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.fragments.is_none() {
            state.fragments = Some(Arc::new(Fragments::build(&state.tombstones)));
        }
        state.fragments.clone()
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

    #[test]
    fn fragments_answer_like_the_list_they_come_from() {
        let list = vec![
            t("b", "f", 10),
            t("d", "h", 20),
            t("a", "c", 5),
            t("x", "x", 30),
            t("g", "g1", 25),
        ];
        let f = Fragments::build(&list);
        let keys = [
            "", "a", "a0", "b", "c", "d", "e", "f", "g", "g0", "g1", "h", "x", "z",
        ];
        for key in keys {
            for entry_seq in [0, 4, 5, 9, 10, 19, 22, 26] {
                for read_seq in [0, 5, 9, 10, 20, 24, 25, 100] {
                    let want = list
                        .iter()
                        .filter(|t| t.start.as_slice() <= key.as_bytes())
                        .filter(|t| key.as_bytes() < t.end.as_slice())
                        .map(|t| t.seq)
                        .filter(|&s| s <= read_seq)
                        .max()
                        .filter(|&s| s > entry_seq);
                    assert_eq!(
                        f.hiding(key.as_bytes(), entry_seq, read_seq),
                        want,
                        "{key}@{entry_seq} read at {read_seq}"
                    );
                }
            }
        }
        // Disjoint and sorted.
        let pieces: Vec<_> = (0..).map_while(|i| f.get(i)).collect();
        assert!(pieces.windows(2).all(|w| w[0].1 <= w[1].0));
        assert!(Fragments::build(&[t("k", "k", 1)]).get(0).is_none());
    }

    #[test]
    fn a_memtables_fragments_follow_its_inserts() {
        let r = RangeDels::default();
        assert!(r.fragments().is_none());
        r.add(b"a", b"c", 3);
        assert_eq!(r.fragments().unwrap().hiding(b"b", 1, 9), Some(3));
        r.add(b"b", b"z", 7);
        assert_eq!(r.fragments().unwrap().hiding(b"b", 1, 9), Some(7));
        assert_eq!(r.len(), 2);
    }
}

//! Merging sorted cursors into one.

use super::InternalIterator;
use crate::Result;
use crate::key::compare_internal;
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// Merges child cursors into one sorted cursor. Children are given newest source first;
/// when two children are at equal internal keys, the earlier child comes first (and last
/// when walking backwards: reverse order is forward order reversed).
///
/// The valid children sit in a binary heap ordered for the current direction, so a step
/// costs about `log2(children)` key comparisons instead of one per child: a scan merges
/// the memtables, every L0 table and one cursor per deeper level, and a compaction every
/// L0 table with the level below.
pub struct MergingIterator {
    children: Vec<Box<dyn InternalIterator>>,
    /// Indices of the valid children, a heap whose top (`heap[0]`) is the current child.
    heap: Vec<usize>,
    direction: Direction,
}

impl MergingIterator {
    /// Merges `children` (newest source first).
    pub fn new(children: Vec<Box<dyn InternalIterator>>) -> MergingIterator {
        MergingIterator {
            children,
            heap: Vec::new(),
            direction: Direction::Forward,
        }
    }

    /// Whether child `a` comes before child `b` in the current direction.
    fn before(&self, a: usize, b: usize) -> bool {
        let order = compare_internal(self.children[a].key(), self.children[b].key());
        match self.direction {
            Direction::Forward => order.then(a.cmp(&b)) == Ordering::Less,
            Direction::Reverse => order.then(a.cmp(&b)) == Ordering::Greater,
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * at + 1, 2 * at + 2);
            let mut first = at;
            if l < n && self.before(self.heap[l], self.heap[first]) {
                first = l;
            }
            if r < n && self.before(self.heap[r], self.heap[first]) {
                first = r;
            }
            if first == at {
                return;
            }
            self.heap.swap(at, first);
            at = first;
        }
    }

    /// Builds the heap from every valid child, for the current direction.
    fn rebuild(&mut self) {
        self.heap.clear();
        self.heap
            .extend((0..self.children.len()).filter(|&i| self.children[i].valid()));
        for at in (0..self.heap.len() / 2).rev() {
            self.sift_down(at);
        }
    }

    /// Puts the current child, just moved, back in its place (or out, if it ran out).
    fn settle_top(&mut self) {
        let Some(&top) = self.heap.first() else {
            return;
        };
        if !self.children[top].valid() {
            self.heap.swap_remove(0);
        }
        self.sift_down(0);
    }

    fn current(&self) -> Option<usize> {
        self.heap.first().copied()
    }

    /// The index (in the order given to [`MergingIterator::new`]) of the child the cursor
    /// is at; `None` when it is not valid.
    pub fn current_child(&self) -> Option<usize> {
        self.current()
    }
}

impl InternalIterator for MergingIterator {
    fn valid(&self) -> bool {
        !self.heap.is_empty()
    }

    fn seek_to_first(&mut self) -> Result<()> {
        for c in &mut self.children {
            c.seek_to_first()?;
        }
        self.direction = Direction::Forward;
        self.rebuild();
        Ok(())
    }

    fn seek_to_last(&mut self) -> Result<()> {
        for c in &mut self.children {
            c.seek_to_last()?;
        }
        self.direction = Direction::Reverse;
        self.rebuild();
        Ok(())
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        for c in &mut self.children {
            c.seek(target)?;
        }
        self.direction = Direction::Forward;
        self.rebuild();
        Ok(())
    }

    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()> {
        for c in &mut self.children {
            c.seek_for_prev(target)?;
        }
        self.direction = Direction::Reverse;
        self.rebuild();
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        let Some(cur) = self.current() else {
            return Ok(());
        };
        if self.direction == Direction::Reverse {
            // Every other child must move to its first entry after the current key.
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek(&key)?;
                // Children before `cur` sort first on ties: they are already past `key`'s
                // position only if strictly greater.
                if c.valid() && compare_internal(c.key(), &key) == Ordering::Equal && i < cur {
                    c.next()?;
                }
            }
            self.direction = Direction::Forward;
            self.children[cur].next()?;
            self.rebuild();
            return Ok(());
        }
        self.children[cur].next()?;
        self.settle_top();
        Ok(())
    }

    fn prev(&mut self) -> Result<()> {
        let Some(cur) = self.current() else {
            return Ok(());
        };
        if self.direction == Direction::Forward {
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek_for_prev(&key)?;
                if c.valid() && compare_internal(c.key(), &key) == Ordering::Equal && i > cur {
                    c.prev()?;
                }
            }
            self.direction = Direction::Reverse;
            self.children[cur].prev()?;
            self.rebuild();
            return Ok(());
        }
        self.children[cur].prev()?;
        self.settle_top();
        Ok(())
    }

    fn key(&self) -> &[u8] {
        self.current()
            .and_then(|i| self.children.get(i))
            .map(|c| c.key())
            .unwrap_or_default()
    }

    fn value(&self) -> &[u8] {
        self.current()
            .and_then(|i| self.children.get(i))
            .map(|c| c.value())
            .unwrap_or_default()
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.current()
            .and_then(|i| self.children.get(i))
            .map(|c| c.value_bytes())
            .unwrap_or_default()
    }
}

/// A cursor over a sorted vector, for tests of the layers above.
#[cfg(test)]
pub(crate) struct VecIter {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    pos: Option<usize>,
}

#[cfg(test)]
impl VecIter {
    pub(crate) fn new(mut entries: Vec<(Vec<u8>, Vec<u8>)>) -> VecIter {
        entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
        VecIter { entries, pos: None }
    }
}

#[cfg(test)]
impl InternalIterator for VecIter {
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn seek_to_first(&mut self) -> Result<()> {
        self.pos = (!self.entries.is_empty()).then_some(0);
        Ok(())
    }
    fn seek_to_last(&mut self) -> Result<()> {
        self.pos = self.entries.len().checked_sub(1);
        Ok(())
    }
    fn seek(&mut self, t: &[u8]) -> Result<()> {
        let i = self
            .entries
            .partition_point(|e| compare_internal(&e.0, t) == Ordering::Less);
        self.pos = (i < self.entries.len()).then_some(i);
        Ok(())
    }
    fn seek_for_prev(&mut self, t: &[u8]) -> Result<()> {
        let i = self
            .entries
            .partition_point(|e| compare_internal(&e.0, t) != Ordering::Greater);
        self.pos = i.checked_sub(1);
        Ok(())
    }
    fn next(&mut self) -> Result<()> {
        self.pos = self.pos.map(|p| p + 1).filter(|&p| p < self.entries.len());
        Ok(())
    }
    fn prev(&mut self) -> Result<()> {
        self.pos = self.pos.and_then(|p| p.checked_sub(1));
        Ok(())
    }
    fn key(&self) -> &[u8] {
        &self.entries[self.pos.unwrap()].0
    }
    fn value(&self) -> &[u8] {
        &self.entries[self.pos.unwrap()].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::internal_key;
    use proptest::prelude::*;

    /// Walks a merge of `sources` (child `i` holding the entries `sources[i]`) and a stable
    /// sort of their union side by side (equal keys stay in child order), from `target`,
    /// checking each step: `moves` 0 and 1 step forwards, 2 backwards, 3 seeks `target`,
    /// 4 seeks back to it; off either end, the walk restarts at an end.
    fn walk(
        sources: Vec<Vec<(Vec<u8>, Vec<u8>)>>,
        moves: &[u8],
        target: &[u8],
    ) -> std::result::Result<(), TestCaseError> {
        let all: Vec<_> = sources.iter().flatten().cloned().collect();
        let children: Vec<Box<dyn InternalIterator>> = sources
            .into_iter()
            .map(|e| Box::new(VecIter::new(e)) as Box<dyn InternalIterator>)
            .collect();
        let mut model = VecIter::new(all);
        let mut m = MergingIterator::new(children);
        m.seek(target).unwrap();
        model.seek(target).unwrap();
        for &mv in moves {
            prop_assert_eq!(m.valid(), model.valid());
            if !m.valid() {
                if mv % 2 == 0 {
                    m.seek_to_first().unwrap();
                    model.seek_to_first().unwrap();
                } else {
                    m.seek_to_last().unwrap();
                    model.seek_to_last().unwrap();
                }
                continue;
            }
            prop_assert_eq!(m.key(), model.key());
            prop_assert_eq!(m.value(), model.value());
            match mv {
                0 | 1 => {
                    m.next().unwrap();
                    model.next().unwrap();
                }
                2 => {
                    m.prev().unwrap();
                    model.prev().unwrap();
                }
                3 => {
                    m.seek(target).unwrap();
                    model.seek(target).unwrap();
                }
                _ => {
                    m.seek_for_prev(target).unwrap();
                    model.seek_for_prev(target).unwrap();
                }
            }
        }
        Ok(())
    }

    proptest! {
        /// Any walk (forward, backward, mixed, with seeks) matches the sorted union.
        #[test]
        fn matches_sorted_union(
            sources in proptest::collection::vec(
                proptest::collection::btree_set((0u8..20, 0u64..1000), 0..15), 1..5),
            moves in proptest::collection::vec(0u8..5, 1..60),
            target in (0u8..22, 0u64..1000),
        ) {
            // Sequences unique across sources.
            let sources = sources
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    s.iter()
                        .map(|&(k, q)| {
                            let seq = q * 8 + i as u64;
                            (internal_key(&[k], seq, 1), vec![k, seq as u8])
                        })
                        .collect()
                })
                .collect();
            walk(sources, &moves, &internal_key(&[target.0], target.1, 1))?;
        }

        /// Many children (a deep heap) sharing internal keys (a fix-up's copy has the same
        /// key and sequence as its original): ties come out earliest child first going
        /// forwards, latest first going backwards, through seeks and direction changes.
        #[test]
        fn ties_keep_the_child_order(
            sources in proptest::collection::vec(
                proptest::collection::btree_set((0u8..6, 0u64..4), 0..10), 1..12),
            moves in proptest::collection::vec(0u8..5, 1..80),
            target in (0u8..7, 0u64..4),
        ) {
            let sources = sources
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    s.iter()
                        .map(|&(k, q)| (internal_key(&[k], q, 1), vec![k, q as u8, i as u8]))
                        .collect()
                })
                .collect();
            walk(sources, &moves, &internal_key(&[target.0], target.1, 1))?;
        }
    }
}

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
/// when two children are at equal internal keys, the earlier child comes first.
///
/// Picks the current child by a linear scan: the number of children is small (memtables,
/// L0 tables and one cursor per deeper level).
pub struct MergingIterator {
    children: Vec<Box<dyn InternalIterator>>,
    current: Option<usize>,
    direction: Direction,
}

impl MergingIterator {
    /// Merges `children` (newest source first).
    pub fn new(children: Vec<Box<dyn InternalIterator>>) -> MergingIterator {
        MergingIterator {
            children,
            current: None,
            direction: Direction::Forward,
        }
    }

    fn find_smallest(&mut self) {
        let mut best: Option<usize> = None;
        for (i, c) in self.children.iter().enumerate() {
            if !c.valid() {
                continue;
            }
            best = match best {
                Some(b) if compare_internal(c.key(), self.children[b].key()) != Ordering::Less => {
                    Some(b)
                }
                _ => Some(i),
            };
        }
        self.current = best;
    }

    fn find_largest(&mut self) {
        let mut best: Option<usize> = None;
        for (i, c) in self.children.iter().enumerate() {
            if !c.valid() {
                continue;
            }
            // On ties the later child wins: reverse order is forward order reversed.
            best = match best {
                Some(b) if compare_internal(c.key(), self.children[b].key()) == Ordering::Less => {
                    Some(b)
                }
                _ => Some(i),
            };
        }
        self.current = best;
    }

    fn cur(&mut self) -> Option<&mut Box<dyn InternalIterator>> {
        self.current.and_then(|i| self.children.get_mut(i))
    }
}

impl InternalIterator for MergingIterator {
    fn valid(&self) -> bool {
        self.current.is_some()
    }

    fn seek_to_first(&mut self) -> Result<()> {
        for c in &mut self.children {
            c.seek_to_first()?;
        }
        self.direction = Direction::Forward;
        self.find_smallest();
        Ok(())
    }

    fn seek_to_last(&mut self) -> Result<()> {
        for c in &mut self.children {
            c.seek_to_last()?;
        }
        self.direction = Direction::Reverse;
        self.find_largest();
        Ok(())
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        for c in &mut self.children {
            c.seek(target)?;
        }
        self.direction = Direction::Forward;
        self.find_smallest();
        Ok(())
    }

    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()> {
        for c in &mut self.children {
            c.seek_for_prev(target)?;
        }
        self.direction = Direction::Reverse;
        self.find_largest();
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        let Some(cur) = self.current else {
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
        }
        if let Some(c) = self.cur() {
            c.next()?;
        }
        self.find_smallest();
        Ok(())
    }

    fn prev(&mut self) -> Result<()> {
        let Some(cur) = self.current else {
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
        }
        if let Some(c) = self.cur() {
            c.prev()?;
        }
        self.find_largest();
        Ok(())
    }

    fn key(&self) -> &[u8] {
        self.current
            .and_then(|i| self.children.get(i))
            .map(|c| c.key())
            .unwrap_or_default()
    }

    fn value(&self) -> &[u8] {
        self.current
            .and_then(|i| self.children.get(i))
            .map(|c| c.value())
            .unwrap_or_default()
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.current
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

    fn entries(keys: &[(u8, u64)]) -> Vec<(Vec<u8>, Vec<u8>)> {
        keys.iter()
            .map(|&(k, s)| (internal_key(&[k], s, 1), vec![k, s as u8]))
            .collect()
    }

    proptest! {
        /// Any walk (forward, backward, mixed, with seeks) matches the sorted union.
        #[test]
        fn matches_sorted_union(
            sources in proptest::collection::vec(
                proptest::collection::btree_set((0u8..20, 0u64..1000), 0..15), 1..5),
            moves in proptest::collection::vec(0u8..4, 1..60),
            target in (0u8..22, 0u64..1000),
        ) {
            let mut all: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
            for (i, s) in sources.iter().enumerate() {
                // Make sequences unique across sources.
                let keys: Vec<(u8, u64)> = s.iter().map(|&(k, q)| (k, q * 8 + i as u64)).collect();
                all.extend(entries(&keys));
                children.push(Box::new(VecIter::new(entries(&keys))));
            }
            let mut model = VecIter::new(all);
            let mut m = MergingIterator::new(children);
            let t = internal_key(&[target.0], target.1, 1);
            m.seek(&t).unwrap();
            model.seek(&t).unwrap();
            for mv in moves {
                prop_assert_eq!(m.valid(), model.valid());
                if !m.valid() {
                    m.seek_to_first().unwrap();
                    model.seek_to_first().unwrap();
                    continue;
                }
                prop_assert_eq!(m.key(), model.key());
                prop_assert_eq!(m.value(), model.value());
                match mv {
                    0 | 1 => { m.next().unwrap(); model.next().unwrap(); }
                    2 => { m.prev().unwrap(); model.prev().unwrap(); }
                    _ => { m.seek_for_prev(&t).unwrap(); model.seek_for_prev(&t).unwrap(); }
                }
            }
        }
    }
}

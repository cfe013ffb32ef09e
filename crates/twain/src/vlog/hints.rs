//! What a reader that walks keys in ascending order remembers about its searches in each
//! SVTable, so that the next search there starts near the last one.
//!
//! An SVTable is sorted by key. An iterator whose handles are stale (value GC rewrote
//! their files) searches the SVTables for ascending keys: each search lands at or after
//! the previous one in the same table, and a galloping search from there touches a few
//! neighbouring index entries instead of a whole binary search.

use std::collections::HashMap;

/// Tables one reader keeps a hint for; past this it starts afresh (hints only speed up).
const MAX_TABLES: usize = 1024;

/// Per-table search hints of one reader. Not thread-safe; cheap to create.
#[derive(Debug, Default)]
pub struct ScanHints {
    index: HashMap<(u64, u32), Option<usize>>,
}

impl ScanHints {
    /// The hint for epoch `epoch` of value file `number`: `None` before its first search.
    pub fn index_hint(&mut self, number: u64, epoch: u32) -> &mut Option<usize> {
        if self.index.len() >= MAX_TABLES && !self.index.contains_key(&(number, epoch)) {
            self.index.clear();
        }
        self.index.entry((number, epoch)).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_are_per_table_and_start_empty() {
        let mut h = ScanHints::default();
        assert_eq!(*h.index_hint(7, 1), None);
        *h.index_hint(7, 1) = Some(3);
        assert_eq!(*h.index_hint(7, 1), Some(3));
        assert_eq!(*h.index_hint(7, 2), None, "another epoch is another table");
        for n in 0..MAX_TABLES as u64 + 1 {
            *h.index_hint(100 + n, 1) = Some(1);
        }
        assert!(h.index.len() <= MAX_TABLES);
    }
}

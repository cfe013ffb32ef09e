//! A cursor over one sorted level (L1 and deeper): its tables in key order, each opened
//! only when the cursor reaches it.

use super::InternalIterator;
use crate::Result;
use crate::key::compare_internal;
use crate::table::TableIter;
use crate::version::TableFile;
use std::cmp::Ordering;
use std::sync::Arc;

/// Walks the tables of a sorted level as one cursor.
pub struct LevelIterator {
    files: Vec<Arc<TableFile>>,
    index: usize,
    iter: Option<TableIter>,
    fill_cache: bool,
}

impl LevelIterator {
    /// A cursor over `files` (sorted, non-overlapping).
    pub fn new(files: Vec<Arc<TableFile>>, fill_cache: bool) -> LevelIterator {
        LevelIterator {
            files,
            index: 0,
            iter: None,
            fill_cache,
        }
    }

    fn open(&mut self, index: usize) -> bool {
        match self.files.get(index) {
            Some(f) => {
                self.index = index;
                self.iter = Some(f.table.iter(self.fill_cache));
                true
            }
            None => {
                self.iter = None;
                false
            }
        }
    }

    /// Moves forward over exhausted tables.
    fn skip_forward(&mut self) -> Result<()> {
        while self.iter.as_ref().is_some_and(|i| !i.valid()) {
            if !self.open(self.index + 1) {
                break;
            }
            if let Some(i) = self.iter.as_mut() {
                i.seek_to_first()?;
            }
        }
        Ok(())
    }

    /// Moves backward over exhausted tables.
    fn skip_backward(&mut self) -> Result<()> {
        while self.iter.as_ref().is_some_and(|i| !i.valid()) {
            if self.index == 0 || !self.open(self.index - 1) {
                self.iter = None;
                break;
            }
            if let Some(i) = self.iter.as_mut() {
                i.seek_to_last()?;
            }
        }
        Ok(())
    }
}

impl InternalIterator for LevelIterator {
    fn valid(&self) -> bool {
        self.iter.as_ref().is_some_and(|i| i.valid())
    }

    fn seek_to_first(&mut self) -> Result<()> {
        if self.open(0)
            && let Some(i) = self.iter.as_mut()
        {
            i.seek_to_first()?;
        }
        self.skip_forward()
    }

    fn seek_to_last(&mut self) -> Result<()> {
        if let Some(last) = self.files.len().checked_sub(1)
            && self.open(last)
            && let Some(i) = self.iter.as_mut()
        {
            i.seek_to_last()?;
        }
        self.skip_backward()
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        let idx = self
            .files
            .partition_point(|f| compare_internal(&f.record.largest, target) == Ordering::Less);
        if self.open(idx)
            && let Some(i) = self.iter.as_mut()
        {
            i.seek(target)?;
        }
        self.skip_forward()
    }

    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()> {
        let idx = self
            .files
            .partition_point(|f| compare_internal(&f.record.smallest, target) != Ordering::Greater);
        match idx.checked_sub(1) {
            Some(i) if self.open(i) => {
                if let Some(it) = self.iter.as_mut() {
                    it.seek_for_prev(target)?;
                }
                self.skip_backward()
            }
            _ => {
                self.iter = None;
                Ok(())
            }
        }
    }

    fn next(&mut self) -> Result<()> {
        if let Some(i) = self.iter.as_mut() {
            i.next()?;
        }
        self.skip_forward()
    }

    fn prev(&mut self) -> Result<()> {
        if let Some(i) = self.iter.as_mut() {
            i.prev()?;
        }
        self.skip_backward()
    }

    fn key(&self) -> &[u8] {
        self.iter.as_ref().map(|i| i.key()).unwrap_or_default()
    }

    fn value(&self) -> &[u8] {
        self.iter.as_ref().map(|i| i.value()).unwrap_or_default()
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.iter
            .as_ref()
            .map(|i| i.value_bytes())
            .unwrap_or_default()
    }
}

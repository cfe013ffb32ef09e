//! Iteration over internal entries, and the merging that turns many sorted sources into
//! the user's view.

use crate::Result;
use bytes::Bytes;

/// A cursor over internal entries (`internal key -> encoded value`) in internal-key order.
///
/// Implemented by the memtable, SSTables, level concatenations and the merging iterator.
/// Not thread-safe: one cursor per reader. Any I/O or corruption error is returned by the
/// positioning call that met it; afterwards the cursor is invalid.
pub trait InternalIterator: Send {
    /// Whether the cursor is at an entry.
    fn valid(&self) -> bool;
    /// Positions at the first entry.
    fn seek_to_first(&mut self) -> Result<()>;
    /// Positions at the last entry.
    fn seek_to_last(&mut self) -> Result<()>;
    /// Positions at the first entry whose internal key is `>= target`.
    fn seek(&mut self, target: &[u8]) -> Result<()>;
    /// Positions at the last entry whose internal key is `<= target`.
    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()>;
    /// Moves to the next entry. REQUIRES: `valid()`.
    fn next(&mut self) -> Result<()>;
    /// Moves to the previous entry. REQUIRES: `valid()`.
    fn prev(&mut self) -> Result<()>;
    /// The current internal key. REQUIRES: `valid()`.
    fn key(&self) -> &[u8];
    /// The current value: inline value bytes, an encoded handle, or empty for a tombstone,
    /// as the key's kind says. REQUIRES: `valid()`.
    fn value(&self) -> &[u8];
    /// The current value as [`Bytes`]: shared with the table block it lies in where the
    /// source can (a table's iterator), else copied. REQUIRES: `valid()`.
    fn value_bytes(&self) -> Bytes {
        Bytes::copy_from_slice(self.value())
    }
}

mod level;
mod merge;

pub use level::LevelIterator;
pub use merge::MergingIterator;

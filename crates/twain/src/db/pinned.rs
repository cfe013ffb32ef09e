//! Iteration with values shared rather than copied: [`Pinned`] yields each value as
//! [`Bytes`] that share the table block it was found in (cached or not) or the buffer a
//! separated value was read into. The same seekable cursor as [`DbIterator`], over its
//! range and at its view.

use super::DbIterator;
use super::iter::PinnedPair;
use crate::Result;

/// Iterates over pairs whose values are shared, not copied: an inline value shares the
/// table block it lies in, a separated value the buffer it was read into (by the cursor or
/// the prefetcher); a memtable's value is copied once. A value keeps what it shares alive
/// (a block of `block_size`, or a prefetched read of several values) for as long as it is
/// held, so a caller that keeps many values should copy the small ones. Made by
/// [`Db::range_pinned`](crate::Db::range_pinned) or [`DbIterator::into_pinned`]; `Send`,
/// not thread-safe to share.
#[derive(Debug)]
pub struct Pinned(pub(super) DbIterator);

super::entries::seek_methods!(Pinned);

impl Pinned {
    /// Steps the cursor back (see [`DbIterator::prev`]).
    pub fn prev(&mut self) -> Option<Result<PinnedPair>> {
        self.0.prev_pair()
    }
}

impl Iterator for Pinned {
    type Item = Result<PinnedPair>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_failed() {
            return None;
        }
        let r = self.0.next_pair();
        self.0.finish_cursor(r)
    }
}

impl DoubleEndedIterator for Pinned {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back_pair()
    }
}

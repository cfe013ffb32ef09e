//! Holes in [`MemFs`](super::MemFs) files: what a punch frees, zeroes and may lose in a
//! crash.
#![deny(clippy::indexing_slicing)]

use super::Content;
use crate::fs::ALLOCATION_BLOCK;
use std::io;
use std::ops::Range;

/// A punch not yet made durable by a sync: what a crash may undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UnsyncedPunch {
    /// Where the zeroed bytes start.
    pub(super) offset: usize,
    /// The bytes the punch zeroed, as they were before it (clipped by later truncations).
    pub(super) old: Vec<u8>,
}

/// Checks a punch's range as Linux does: empty or past the largest offset is invalid.
pub(super) fn check_range(offset: u64, len: u64) -> io::Result<()> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_owned());
    if len == 0 {
        return Err(invalid("empty range to punch"));
    }
    match offset.checked_add(len) {
        Some(end) if end <= i64::MAX as u64 => Ok(()),
        _ => Err(invalid("range past the largest file offset")),
    }
}

impl Content {
    /// Punches `offset..offset + len` (checked by [`check_range`]): zeroes the bytes inside
    /// the file, frees the whole blocks (and the end's partial block if the range reaches the
    /// end), and remembers the old bytes until the next sync.
    pub(super) fn punch(&mut self, offset: u64, len: u64) {
        let size = self.len();
        if offset >= size {
            return;
        }
        let end = offset.saturating_add(len);
        let (end, end_block) = if end >= size {
            (size, size.div_ceil(ALLOCATION_BLOCK))
        } else {
            (end, end / ALLOCATION_BLOCK)
        };
        let first_block = offset.div_ceil(ALLOCATION_BLOCK);
        // Both fit: they are at most the length of `data`.
        let range = offset as usize..end as usize;
        let Some(bytes) = self.data.get_mut(range.clone()) else {
            return;
        };
        let old = bytes.to_vec();
        bytes.fill(0);
        self.unsynced_punches.push(UnsyncedPunch {
            offset: range.start,
            old,
        });
        self.holes.extend(first_block..end_block.max(first_block));
    }

    /// Bytes of storage the content occupies: its whole blocks less the freed ones.
    pub(super) fn allocated(&self) -> u64 {
        let freed = self.holes.len() as u64 * ALLOCATION_BLOCK;
        crate::fs::allocated_for_len(self.len()).saturating_sub(freed)
    }

    /// Keeps the holes true after the length changed from `old_len`: bytes written past it
    /// (appended, or zeros of a growing truncation) allocate the block they land in; a
    /// shortened file loses the holes past its new end, and the crash model forgets the
    /// punched bytes that no longer exist (a truncation is durable at once).
    pub(super) fn length_changed(&mut self, old_len: u64) {
        let len = self.len();
        let keep_below = if len < old_len {
            len.div_ceil(ALLOCATION_BLOCK)
        } else {
            old_len / ALLOCATION_BLOCK
        };
        self.holes.split_off(&keep_below);
        if len < old_len {
            let len = self.data.len();
            self.unsynced_punches.retain_mut(|p| {
                p.old.truncate(len.saturating_sub(p.offset));
                !p.old.is_empty()
            });
        }
    }

    /// The content as it would read had only the first `kept` unsynced punches happened.
    pub(super) fn with_punches_kept(&self, kept: usize) -> Vec<u8> {
        let mut data = self.data.clone();
        for punch in self.unsynced_punches.iter().skip(kept).rev() {
            let end = punch.offset.saturating_add(punch.old.len()).min(data.len());
            let range: Range<usize> = punch.offset.min(end)..end;
            let len = range.len();
            if let (Some(dst), Some(src)) = (data.get_mut(range), punch.old.get(..len)) {
                dst.copy_from_slice(src);
            }
        }
        data
    }

    /// The freed blocks of a crash image holding `data`: the blocks freed now that lie
    /// inside it and read as zeros there (a punch the crash undid left its old bytes).
    pub(super) fn image_holes(&self, data: &[u8]) -> std::collections::BTreeSet<u64> {
        let block = ALLOCATION_BLOCK as usize;
        self.holes
            .iter()
            .copied()
            .filter(|&b| {
                let start = (b as usize).saturating_mul(block);
                let end = start.saturating_add(block).min(data.len());
                start < data.len()
                    && data
                        .get(start..end)
                        .is_some_and(|d| d.iter().all(|&x| x == 0))
            })
            .collect()
    }
}

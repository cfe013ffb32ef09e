//! Where a pair lives (Parallax's hybrid placement): the size classes and the pure decisions
//! that flush and compaction make from them.
//!
//! A pair's class is set by its key + value size against two thresholds:
//! - **small** (below `medium_threshold`): inline in the key store, from the log's memtable on;
//! - **medium** (from `medium_threshold` to below `inline_threshold`): inline in the log and
//!   the memtable (the log holds it only for recovery), moved by the flush into a sorted
//!   *transient* value file, and merged back into the tree — read in key order and written
//!   inline — by the compaction that writes it into the merge level; the transient file is
//!   then freed whole, with no GC copy;
//! - **large** (`inline_threshold` and above): separated in the value log at write time and
//!   reclaimed by value GC.
//!
//! Compaction also *re-places* what it rewrites when the thresholds changed: a handle whose
//! pair is now small (or medium at the merge level) becomes inline; an inline pair that is
//! now large is separated into a value file the compaction writes.

use crate::format::vlog::{LogEntryKind, entry_len};

/// The size class of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Inline everywhere.
    Small = 0,
    /// Inline in the log; a transient value file above the merge level; inline at it.
    Medium,
    /// Separated at write time; reclaimed by value GC.
    Large,
}

/// The thresholds, from the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Pairs of at least this many bytes (key + value) are medium or large.
    pub medium_threshold: usize,
    /// Pairs of at least this many bytes are large.
    pub inline_threshold: usize,
    /// The level from which compaction writes medium pairs inline (0: only where no deeper
    /// level holds the key, i.e. at the last level).
    pub merge_level: usize,
}

/// What compaction does with one kept entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Write the entry as it is.
    Keep,
    /// Read the handle's value and write it inline (the record in the value file is dropped).
    Inline,
    /// Write the inline value into a value file and the handle into the table.
    Separate,
}

impl Placement {
    /// The class of a pair of `key_len` + `value_len` bytes.
    pub fn class(&self, key_len: usize, value_len: usize) -> Class {
        let n = key_len.saturating_add(value_len);
        if n >= self.inline_threshold {
            Class::Large
        } else if n >= self.medium_threshold {
            Class::Medium
        } else {
            Class::Small
        }
    }

    /// Whether medium pairs are written inline into `level`; `last` says whether no deeper
    /// level may hold the key.
    pub fn merges_at(&self, level: usize, last: bool) -> bool {
        last || (self.merge_level > 0 && level >= self.merge_level)
    }

    /// What compaction does with a kept entry: `handle` says whether it is a value handle
    /// (else an inline value), `merge` whether the output level merges medium pairs.
    pub fn action(&self, handle: bool, key_len: usize, value_len: usize, merge: bool) -> Action {
        match (self.class(key_len, value_len), handle) {
            (Class::Small, true) => Action::Inline,
            (Class::Medium, true) if merge => Action::Inline,
            (Class::Large, false) => Action::Separate,
            _ => Action::Keep,
        }
    }

    /// Whether the flush moves an inline pair into the transient value file.
    pub fn flush_moves(&self, key_len: usize, value_len: usize) -> bool {
        self.class(key_len, value_len) == Class::Medium
    }
}

/// The value length of a separated entry of `entry_len` bytes holding a key of `key_len`
/// bytes (the entry: kind, two varint lengths, key, value, checksum); `None` if no value
/// length gives that size.
pub fn separated_value_len(len: u32, key_len: usize) -> Option<u64> {
    let len = len as usize;
    // The value length's varint takes 1 to 10 bytes; exactly one choice is consistent.
    (1..=10).find_map(|varint| {
        let fixed = entry_len(LogEntryKind::Separated, key_len, 0) - 1 + varint;
        let value_len = len.checked_sub(fixed)?;
        (entry_len(LogEntryKind::Separated, key_len, value_len) == len).then_some(value_len as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Placement = Placement {
        medium_threshold: 100,
        inline_threshold: 1000,
        merge_level: 0,
    };

    #[test]
    fn classes_follow_the_thresholds() {
        assert_eq!(P.class(10, 89), Class::Small);
        assert_eq!(P.class(10, 90), Class::Medium);
        assert_eq!(P.class(10, 989), Class::Medium);
        assert_eq!(P.class(10, 990), Class::Large);
        // No medium class when the thresholds meet or cross.
        let two = Placement {
            medium_threshold: 256,
            inline_threshold: 256,
            merge_level: 0,
        };
        assert_eq!(two.class(0, 255), Class::Small);
        assert_eq!(two.class(0, 256), Class::Large);
        let crossed = Placement {
            medium_threshold: 500,
            ..two
        };
        assert_eq!(crossed.class(0, 300), Class::Large);
    }

    #[test]
    fn compaction_merges_medium_pairs_only_at_the_merge_level() {
        assert_eq!(P.action(true, 10, 500, false), Action::Keep);
        assert_eq!(P.action(true, 10, 500, true), Action::Inline);
        assert_eq!(P.action(false, 10, 500, true), Action::Keep);
        assert_eq!(P.action(false, 10, 500, false), Action::Keep);
        assert!(P.merges_at(1, true));
        assert!(!P.merges_at(5, false));
        let fixed = Placement {
            merge_level: 3,
            ..P
        };
        assert!(!fixed.merges_at(2, false));
        assert!(fixed.merges_at(3, false));
        assert!(fixed.merges_at(1, true));
    }

    #[test]
    fn compaction_re_places_what_crossed_a_threshold() {
        // A handle to a pair now small becomes inline anywhere.
        assert_eq!(P.action(true, 10, 20, false), Action::Inline);
        // An inline pair now large is separated anywhere.
        assert_eq!(P.action(false, 10, 5000, false), Action::Separate);
        assert_eq!(P.action(true, 10, 5000, true), Action::Keep);
        assert_eq!(P.action(false, 10, 20, true), Action::Keep);
    }

    #[test]
    fn the_flush_moves_medium_pairs_only() {
        assert!(!P.flush_moves(10, 20));
        assert!(P.flush_moves(10, 200));
        assert!(!P.flush_moves(10, 2000));
    }

    #[test]
    fn value_length_comes_back_from_the_entry_length() {
        for key_len in [0usize, 1, 16, 200] {
            for value_len in [0usize, 1, 127, 128, 1000, 16383, 16384, 1 << 20] {
                let len = entry_len(LogEntryKind::Separated, key_len, value_len) as u32;
                assert_eq!(
                    separated_value_len(len, key_len),
                    Some(value_len as u64),
                    "key {key_len} value {value_len}"
                );
            }
        }
    }
}

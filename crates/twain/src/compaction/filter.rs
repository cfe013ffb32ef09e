//! Which versions a flush or compaction keeps, and which it drops.
//!
//! Entries arrive in internal-key order (user key ascending, newest version first). The
//! live snapshots split the sequence space into stripes: stripe `i` holds the sequences in
//! `(snapshot[i-1], snapshot[i]]`, and the last stripe everything newer than the newest
//! snapshot. A reader at any snapshot sees at most one version per stripe — the newest —
//! so every older version in the same stripe is dropped. A tombstone in the oldest stripe
//! is dropped too when no deeper level can hold the key (nothing left for it to hide).

use crate::key::{EntryKind, ParsedKey, SeqNo};

/// What to do with one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Write it to the output.
    Keep,
    /// Leave it out: it is shadowed (or a tombstone with nothing left to hide). If it holds
    /// a value handle, a drop record is due.
    Drop,
    /// Leave it out without a drop record: the same (key, sequence) came from a newer
    /// source, which keeps the value referenced.
    Duplicate,
}

/// Decides entry by entry; carries the state of the current user key.
#[derive(Debug)]
pub struct DropFilter {
    snapshots: Vec<SeqNo>,
    key: Vec<u8>,
    have_key: bool,
    last_stripe: usize,
    last_seq: SeqNo,
}

impl DropFilter {
    /// A filter for the given live snapshot sequences (any order).
    pub fn new(mut snapshots: Vec<SeqNo>) -> DropFilter {
        snapshots.sort_unstable();
        snapshots.dedup();
        DropFilter {
            snapshots,
            key: Vec::new(),
            have_key: false,
            last_stripe: 0,
            last_seq: 0,
        }
    }

    fn stripe(&self, seq: SeqNo) -> usize {
        self.snapshots.partition_point(|&s| s < seq)
    }

    /// Decides about the next entry. `no_older_data(user_key)` tells whether no deeper
    /// level may hold the key (asked only for tombstones that could be dropped).
    pub fn decide(&mut self, ikey: &[u8], no_older_data: impl FnOnce(&[u8]) -> bool) -> Decision {
        let p = ParsedKey::parse(ikey);
        let stripe = self.stripe(p.seq);
        let same_key = self.have_key && self.key == p.user_key;
        if !same_key {
            self.key.clear();
            self.key.extend_from_slice(p.user_key);
            self.have_key = true;
        } else {
            if p.seq == self.last_seq {
                return Decision::Duplicate;
            }
            if stripe == self.last_stripe {
                self.last_seq = p.seq;
                return Decision::Drop;
            }
        }
        self.last_stripe = stripe;
        self.last_seq = p.seq;
        if p.entry_kind() == Some(EntryKind::Delete) && stripe == 0 && no_older_data(p.user_key) {
            return Decision::Drop;
        }
        Decision::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::internal_key;

    fn run(snaps: Vec<SeqNo>, entries: &[(&str, SeqNo, EntryKind)], bottom: bool) -> Vec<Decision> {
        let mut f = DropFilter::new(snaps);
        entries
            .iter()
            .map(|&(k, s, kind)| f.decide(&internal_key(k.as_bytes(), s, kind as u8), |_| bottom))
            .collect()
    }

    use Decision::*;
    use EntryKind::*;

    #[test]
    fn without_snapshots_only_the_newest_survives() {
        let d = run(
            vec![],
            &[
                ("a", 9, Inline),
                ("a", 5, Handle),
                ("a", 2, Inline),
                ("b", 1, Handle),
            ],
            false,
        );
        assert_eq!(d, vec![Keep, Drop, Drop, Keep]);
    }

    #[test]
    fn a_snapshot_keeps_the_version_it_sees() {
        // Snapshot at 6 sees a@5; a@2 is hidden from everyone.
        let d = run(
            vec![6],
            &[("a", 9, Inline), ("a", 5, Handle), ("a", 2, Inline)],
            false,
        );
        assert_eq!(d, vec![Keep, Keep, Drop]);
    }

    #[test]
    fn tombstones_go_only_at_the_bottom_and_below_every_snapshot() {
        assert_eq!(
            run(vec![], &[("a", 9, Delete), ("a", 5, Inline)], true),
            vec![Drop, Drop]
        );
        assert_eq!(
            run(vec![], &[("a", 9, Delete), ("a", 5, Inline)], false),
            vec![Keep, Drop]
        );
        // A snapshot older than the tombstone still sees a@5.
        assert_eq!(
            run(vec![7], &[("a", 9, Delete), ("a", 5, Inline)], true),
            vec![Keep, Keep]
        );
    }

    #[test]
    fn same_key_and_sequence_twice_is_a_duplicate_not_a_drop() {
        let d = run(
            vec![],
            &[("a", 5, Handle), ("a", 5, Handle), ("a", 3, Handle)],
            false,
        );
        assert_eq!(d, vec![Keep, Duplicate, Drop]);
    }
}

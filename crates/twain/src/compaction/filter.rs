//! Which versions a flush or compaction keeps, and which it drops.
//!
//! Entries arrive in internal-key order (user key ascending, newest version first). The
//! live snapshots split the sequence space into stripes: stripe `i` holds the sequences in
//! `(snapshot[i-1], snapshot[i]]`, and the last stripe everything newer than the newest
//! snapshot. A reader at any snapshot sees at most one version per stripe — the newest —
//! so every older version in the same stripe is dropped. A tombstone in the oldest stripe
//! is dropped too when no deeper level can hold the key (nothing left for it to hide).
//!
//! A put that has expired (its expiry time is at or before the filter's `now`) is absent
//! for every reader, whatever its snapshot: it becomes a tombstone at its own sequence
//! (which hides what it hid), and its value is dropped; where a tombstone would be dropped,
//! it is dropped whole.

use crate::key::{EntryKind, ParsedKey, SeqNo, is_expired, split_expiry};

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
    /// An expired put: write a tombstone at its sequence instead, and drop its value (a
    /// drop record is due if it holds a handle).
    Expire,
}

/// Decides entry by entry; carries the state of the current user key.
#[derive(Debug)]
pub struct DropFilter {
    snapshots: Vec<SeqNo>,
    now: Option<u64>,
    expired: u64,
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
            now: None,
            expired: 0,
            key: Vec::new(),
            have_key: false,
            last_stripe: 0,
            last_seq: 0,
        }
    }

    /// Judges expiry at `now` (milliseconds since the Unix epoch): without it, expiring
    /// puts are kept as any put is.
    pub fn expiring_at(mut self, now: u64) -> DropFilter {
        self.now = Some(now);
        self
    }

    /// Expired puts decided so far (dropped, or to be written as tombstones).
    pub fn expired(&self) -> u64 {
        self.expired
    }

    fn stripe(&self, seq: SeqNo) -> usize {
        self.snapshots.partition_point(|&s| s < seq)
    }

    /// Decides about the next entry, `ikey` holding `value`. `no_older_data(user_key)`
    /// tells whether no deeper level may hold the key (asked only for tombstones, and
    /// expired puts, that could be dropped).
    pub fn decide(
        &mut self,
        ikey: &[u8],
        value: &[u8],
        no_older_data: impl FnOnce(&[u8]) -> bool,
    ) -> Decision {
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
        let expired = self.now.is_some_and(|now| {
            // A damaged expiry is kept as it is, for the reader to report.
            split_expiry(p.kind, value).is_ok_and(|(at, _)| is_expired(at, now))
        });
        self.expired += u64::from(expired);
        if (expired || p.entry_kind() == Some(EntryKind::Delete))
            && stripe == 0
            && no_older_data(p.user_key)
        {
            return Decision::Drop;
        }
        if expired {
            return Decision::Expire;
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
            .map(|&(k, s, kind)| {
                f.decide(&internal_key(k.as_bytes(), s, kind as u8), &[], |_| bottom)
            })
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
    fn expired_puts_become_tombstones_or_go_at_the_bottom() {
        let put = |at: u64| {
            let mut v = at.to_le_bytes().to_vec();
            v.extend_from_slice(b"value");
            v
        };
        let key = |seq| {
            internal_key(
                b"a",
                seq,
                EntryKind::Inline as u8 | crate::key::EXPIRES_FLAG,
            )
        };
        let mut f = DropFilter::new(vec![]).expiring_at(100);
        assert_eq!(f.decide(&key(9), &put(100), |_| false), Expire);
        assert_eq!(f.decide(&key(5), &put(500), |_| false), Drop);
        let mut f = DropFilter::new(vec![]).expiring_at(100);
        assert_eq!(f.decide(&key(9), &put(101), |_| false), Keep);
        let mut f = DropFilter::new(vec![]).expiring_at(100);
        assert_eq!(f.decide(&key(9), &put(7), |_| true), Drop);
        // A snapshot older than the put keeps the place of a tombstone.
        let mut f = DropFilter::new(vec![3]).expiring_at(100);
        assert_eq!(f.decide(&key(9), &put(7), |_| true), Expire);
        // Without a time, expiry is not judged; a value too short for its expiry is kept.
        let mut f = DropFilter::new(vec![]);
        assert_eq!(f.decide(&key(9), &put(7), |_| true), Keep);
        let mut f = DropFilter::new(vec![]).expiring_at(100);
        assert_eq!(f.decide(&key(9), b"short", |_| true), Keep);
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

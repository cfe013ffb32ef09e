//! The range deletions a reader judges keys by: those of the memtables of its super
//! version (tables hold none: a flush turns them into point tombstones).

use super::SuperVersion;
use crate::key::{EntryKind, SeqNo, internal_key};
use crate::memtable::Memtable;
use std::sync::Arc;

/// The range deletions visible at one sequence number.
#[derive(Debug, Clone, Default)]
pub(crate) struct RangeView {
    /// The memtables holding some.
    mems: Vec<Arc<Memtable>>,
    seq: SeqNo,
}

impl RangeView {
    /// The range deletions of `sv`'s memtables, for a reader at `seq`.
    pub(crate) fn of(sv: &SuperVersion, seq: SeqNo) -> RangeView {
        RangeView {
            mems: std::iter::once(&sv.mem)
                .chain(&sv.imms)
                .filter(|m| m.range_deletion_count() > 0)
                .cloned()
                .collect(),
            seq,
        }
    }

    /// The sequence of the newest visible range deletion that hides `key@entry_seq`.
    pub(crate) fn hiding(&self, key: &[u8], entry_seq: SeqNo) -> Option<SeqNo> {
        self.mems
            .iter()
            .filter_map(|m| m.range_hiding(key, entry_seq, self.seq))
            .max()
    }

    /// `ikey`'s version as the reader sees it: the entry itself, or a tombstone at the
    /// sequence of the range deletion that hides it.
    pub(crate) fn judge(&self, ikey: Vec<u8>) -> (Vec<u8>, bool) {
        if self.mems.is_empty() {
            return (ikey, false);
        }
        let p = crate::key::ParsedKey::parse(&ikey);
        match self.hiding(p.user_key, p.seq) {
            Some(seq) => (internal_key(p.user_key, seq, EntryKind::Delete as u8), true),
            None => (ikey, false),
        }
    }
}

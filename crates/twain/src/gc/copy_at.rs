//! Which copy of a record an entry of the tree names: what lsm-lookup GC (`db::relocate`)
//! and the relocation write path judge a record's liveness by.

use crate::format::handle::ValueHandle;
use crate::key::{EntryKind, ParsedKey, SeqNo, split_expiry};

/// One copy of a record: the value file, the file's epoch when it was read, and where the
/// entry starts. A version can have more than one copy (a relocation and a compaction's
/// re-placement of it can both land in one log): only the copy the tree's handle names is
/// live, and collecting any other would copy the version twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CopyAt {
    /// The value file's number.
    pub file: u64,
    /// Its epoch.
    pub epoch: u32,
    /// The entry's offset.
    pub offset: u64,
}

impl CopyAt {
    /// Whether `h` names this copy. A handle made for an older epoch of the file names
    /// its version by key and sequence (resolved through the SVTable's index, which holds
    /// one copy of each version); one made for this epoch names an offset.
    fn named_by(&self, h: &ValueHandle) -> bool {
        h.file == self.file && (h.epoch != self.epoch || h.offset == self.offset)
    }
}

/// `Some(expiry time)` when the tree entry `ikey` → `value` is version `seq` held as a
/// handle that names the copy `at`; `None` otherwise (another version, an inline value,
/// a tombstone, another copy, or an entry that does not decode).
pub(crate) fn names_copy(ikey: &[u8], value: &[u8], seq: SeqNo, at: CopyAt) -> Option<Option<u64>> {
    let p = ParsedKey::parse(ikey);
    if p.seq != seq || p.entry_kind() != Some(EntryKind::Handle) {
        return None;
    }
    let (expires_at, encoded) = split_expiry(p.kind, value).ok()?;
    ValueHandle::decode(encoded)
        .is_ok_and(|h| at.named_by(&h))
        .then_some(expires_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{append_expiring_value, internal_key, put_kind};

    fn entry(seq: SeqNo, h: ValueHandle, expires_at: Option<u64>) -> (Vec<u8>, Vec<u8>) {
        let kind = put_kind(EntryKind::Handle, expires_at);
        let mut value = Vec::new();
        append_expiring_value(&mut value, expires_at, &h.encode());
        (internal_key(b"k", seq, kind), value)
    }

    #[test]
    fn only_the_named_copy_of_the_same_version_matches() {
        let h = ValueHandle {
            file: 7,
            epoch: 0,
            offset: 100,
            len: 40,
        };
        let at = CopyAt {
            file: 7,
            epoch: 0,
            offset: 100,
        };
        let (k, v) = entry(5, h, None);
        assert_eq!(names_copy(&k, &v, 5, at), Some(None));
        assert_eq!(names_copy(&k, &v, 4, at), None, "another version");
        let elsewhere = CopyAt { offset: 101, ..at };
        assert_eq!(names_copy(&k, &v, 5, elsewhere), None, "another copy");
        let other_file = CopyAt { file: 8, ..at };
        assert_eq!(names_copy(&k, &v, 5, other_file), None);
        // A handle of an older epoch names the version by key and sequence.
        let rewritten = CopyAt {
            epoch: 1,
            ..elsewhere
        };
        assert_eq!(names_copy(&k, &v, 5, rewritten), Some(None));
        // The expiry travels with the answer.
        let (k, v) = entry(5, h, Some(99));
        assert_eq!(names_copy(&k, &v, 5, at), Some(Some(99)));
        // An inline value is no copy in a value file.
        let inline = internal_key(b"k", 5, EntryKind::Inline as u8);
        assert_eq!(names_copy(&inline, b"v", 5, at), None);
        assert_eq!(
            names_copy(&k, b"\xff", 5, at),
            None,
            "a value that does not decode"
        );
    }
}

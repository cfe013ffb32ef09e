//! Internal keys: a user key with the sequence number and kind of the entry.
//!
//! Encoded as `user_key ++ trailer`, where `trailer` is the little-endian `u64`
//! `seq << 8 | kind`. Internal keys order by user key ascending (bytewise), then by trailer
//! descending, so the newest version of a key comes first. This encoding is persisted in
//! SSTables (see `docs/format/sstable.md`).

use std::borrow::Borrow;
use std::cmp::Ordering;

/// A sequence number: every entry written gets the next one. 56 bits.
pub type SeqNo = u64;

/// The largest sequence number that fits in a trailer.
pub const MAX_SEQNO: SeqNo = (1 << 56) - 1;

/// Bytes of the trailer that follows the user key.
pub const TRAILER_LEN: usize = 8;

/// What an entry of the key store holds.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in SSTables and the value log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EntryKind {
    /// A tombstone: the key is deleted.
    Delete = 0,
    /// The value is stored inline, next to the key.
    Inline = 1,
    /// The value is a [`ValueHandle`](crate::format::handle::ValueHandle) into a value file.
    Handle = 2,
}

/// The kind-byte flag of a put that expires: its value in the key store starts with the
/// expiry time, [`EXPIRY_LEN`] bytes of little-endian `u64` milliseconds since the Unix
/// epoch, before the inline value or the encoded handle. Only `Inline` and `Handle` take it.
///
/// DO NOT CHANGE: embedded in SSTables.
pub const EXPIRES_FLAG: u8 = 0x10;

/// Bytes of the expiry time that starts the value of an expiring entry.
pub const EXPIRY_LEN: usize = 8;

/// The kind byte of a put: `kind`, flagged when it expires.
pub fn put_kind(kind: EntryKind, expires_at: Option<u64>) -> u8 {
    match expires_at {
        Some(_) => kind as u8 | EXPIRES_FLAG,
        None => kind as u8,
    }
}

/// A flagged key-store value too short to hold its expiry time: damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortExpiry;

/// Splits a key-store value into its expiry time and the rest (the inline value or the
/// encoded handle). `None` for an entry without the flag; a flagged value too short to hold
/// an expiry is damage, reported as `Err`.
pub fn split_expiry(
    kind: u8,
    value: &[u8],
) -> std::result::Result<(Option<u64>, &[u8]), ShortExpiry> {
    if kind & EXPIRES_FLAG == 0 {
        return Ok((None, value));
    }
    let (at, rest) = value.split_first_chunk::<EXPIRY_LEN>().ok_or(ShortExpiry)?;
    Ok((Some(u64::from_le_bytes(*at)), rest))
}

/// Appends a key-store value: the expiry time if there is one, then `payload`.
pub fn append_expiring_value(buf: &mut Vec<u8>, expires_at: Option<u64>, payload: &[u8]) {
    if let Some(at) = expires_at {
        buf.extend_from_slice(&at.to_le_bytes());
    }
    buf.extend_from_slice(payload);
}

/// Whether an entry that expires at `expires_at` is expired at `now` (both in milliseconds
/// since the Unix epoch). An entry is expired from its expiry time on, as in Redis.
pub fn is_expired(expires_at: Option<u64>, now: u64) -> bool {
    expires_at.is_some_and(|at| at <= now)
}

impl TryFrom<u8> for EntryKind {
    type Error = u8;

    fn try_from(b: u8) -> Result<Self, u8> {
        match b {
            0 => Ok(EntryKind::Delete),
            1 => Ok(EntryKind::Inline),
            2 => Ok(EntryKind::Handle),
            other => Err(other),
        }
    }
}

/// The kind byte used in lookup keys: sorts before every real kind of the same sequence.
pub const LOOKUP_KIND: u8 = 0xff;

/// Packs a sequence number and a kind byte into a trailer value.
pub fn pack_trailer(seq: SeqNo, kind: u8) -> u64 {
    (seq << 8) | u64::from(kind)
}

/// Appends the internal key `(user_key, seq, kind)` to `buf`.
pub fn append_internal_key(buf: &mut Vec<u8>, user_key: &[u8], seq: SeqNo, kind: u8) {
    buf.extend_from_slice(user_key);
    buf.extend_from_slice(&pack_trailer(seq, kind).to_le_bytes());
}

/// Builds the internal key `(user_key, seq, kind)`.
pub fn internal_key(user_key: &[u8], seq: SeqNo, kind: u8) -> Vec<u8> {
    let mut buf = Vec::with_capacity(user_key.len() + TRAILER_LEN);
    append_internal_key(&mut buf, user_key, seq, kind);
    buf
}

/// The key to seek to for the newest version of `user_key` visible at `seq`.
pub fn lookup_key(user_key: &[u8], seq: SeqNo) -> Vec<u8> {
    internal_key(user_key, seq, LOOKUP_KIND)
}

/// An internal key split into its parts. Keys shorter than a trailer parse as
/// `(whole key, 0, 0)` so comparisons never panic; decoders reject them separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedKey<'a> {
    /// The user's key.
    pub user_key: &'a [u8],
    /// The entry's sequence number.
    pub seq: SeqNo,
    /// The raw kind byte (see [`EntryKind`]).
    pub kind: u8,
}

impl<'a> ParsedKey<'a> {
    /// Splits `ikey` into user key, sequence and kind.
    pub fn parse(ikey: &'a [u8]) -> ParsedKey<'a> {
        match ikey.split_at_checked(ikey.len().wrapping_sub(TRAILER_LEN)) {
            Some((user_key, trailer)) => {
                let mut t = [0u8; TRAILER_LEN];
                t.copy_from_slice(trailer);
                let packed = u64::from_le_bytes(t);
                ParsedKey {
                    user_key,
                    seq: packed >> 8,
                    kind: (packed & 0xff) as u8,
                }
            }
            None => ParsedKey {
                user_key: ikey,
                seq: 0,
                kind: 0,
            },
        }
    }

    /// The entry kind, if the kind byte is a valid one (the expiry flag set aside: see
    /// [`EXPIRES_FLAG`]).
    pub fn entry_kind(&self) -> Option<EntryKind> {
        match EntryKind::try_from(self.kind & !EXPIRES_FLAG).ok()? {
            EntryKind::Delete if self.expires() => None,
            kind => Some(kind),
        }
    }

    /// Whether the entry carries an expiry time (its value starts with it).
    pub fn expires(&self) -> bool {
        self.kind & EXPIRES_FLAG != 0
    }
}

/// The user key part of an internal key.
pub fn user_key(ikey: &[u8]) -> &[u8] {
    ParsedKey::parse(ikey).user_key
}

/// Compares two encoded internal keys: user key ascending, then trailer descending.
pub fn compare_internal(a: &[u8], b: &[u8]) -> Ordering {
    let pa = ParsedKey::parse(a);
    let pb = ParsedKey::parse(b);
    pa.user_key
        .cmp(pb.user_key)
        .then_with(|| pack_trailer(pb.seq, pb.kind).cmp(&pack_trailer(pa.seq, pa.kind)))
}

/// The first 8 bytes of `bytes`, zero-padded, as a big-endian number.
///
/// If two byte strings' prefixes differ, the strings order as their prefixes do: where
/// they first differ inside the 8 bytes, either both have a byte there, or the shorter
/// one, padded with zeros, is a proper prefix of the other. Equal prefixes say nothing.
pub(crate) fn byte_prefix(bytes: &[u8]) -> u64 {
    let mut p = [0u8; 8];
    let n = bytes.len().min(8);
    p[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(p)
}

/// The [`byte_prefix`] of an internal key's user key: if two internal keys' prefixes
/// differ, [`compare_internal`] orders them as their prefixes do (user keys decide first).
pub(crate) fn internal_prefix(ikey: &[u8]) -> u64 {
    byte_prefix(ParsedKey::parse(ikey).user_key)
}

/// An owned encoded internal key, ordered as internal keys are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalKey(pub Box<[u8]>);

/// A borrowed encoded internal key, ordered as internal keys are.
#[derive(Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct InternalKeyRef(pub [u8]);

impl InternalKeyRef {
    /// Views encoded bytes as an internal key.
    pub fn new(bytes: &[u8]) -> &InternalKeyRef {
        // SAFETY: `InternalKeyRef` is `repr(transparent)` over `[u8]`, so the two have the
        // same layout and the pointer cast keeps the slice length metadata.
        unsafe { &*(bytes as *const [u8] as *const InternalKeyRef) }
    }
}

impl Ord for InternalKeyRef {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_internal(&self.0, &other.0)
    }
}

impl PartialOrd for InternalKeyRef {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InternalKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_internal(&self.0, &other.0)
    }
}

impl PartialOrd for InternalKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Borrow<InternalKeyRef> for InternalKey {
    fn borrow(&self) -> &InternalKeyRef {
        InternalKeyRef::new(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_versions_sort_first() {
        let a_new = internal_key(b"a", 9, EntryKind::Inline as u8);
        let a_old = internal_key(b"a", 3, EntryKind::Inline as u8);
        let b = internal_key(b"b", 1, EntryKind::Inline as u8);
        assert_eq!(compare_internal(&a_new, &a_old), Ordering::Less);
        assert_eq!(compare_internal(&a_old, &b), Ordering::Less);
        // A user key that is a prefix of another sorts first regardless of trailers.
        let ab = internal_key(b"ab", 100, 0);
        assert_eq!(compare_internal(&a_old, &ab), Ordering::Less);
    }

    #[test]
    fn lookup_key_sorts_before_entries_of_its_sequence() {
        let look = lookup_key(b"k", 5);
        let e5 = internal_key(b"k", 5, EntryKind::Handle as u8);
        let e6 = internal_key(b"k", 6, EntryKind::Delete as u8);
        assert_eq!(compare_internal(&look, &e5), Ordering::Less);
        assert_eq!(compare_internal(&e6, &look), Ordering::Less);
    }

    #[test]
    fn parse_round_trips_and_tolerates_short_keys() {
        let k = internal_key(b"user", 77, EntryKind::Delete as u8);
        let p = ParsedKey::parse(&k);
        assert_eq!(p.user_key, b"user");
        assert_eq!(p.seq, 77);
        assert_eq!(p.entry_kind(), Some(EntryKind::Delete));
        assert_eq!(ParsedKey::parse(b"abc").user_key, b"abc");
    }

    #[test]
    fn prefixes_pad_short_keys_with_zeros() {
        assert_eq!(byte_prefix(b""), 0);
        assert_eq!(byte_prefix(b"\x01"), 1 << 56);
        assert_eq!(byte_prefix(b"abcdefghij"), byte_prefix(b"abcdefgh"));
        // "ab" and "ab\0" pad alike: the prefix cannot tell them apart, the comparison can.
        assert_eq!(byte_prefix(b"ab"), byte_prefix(b"ab\0"));
        assert_eq!(
            internal_prefix(&internal_key(b"k", 5, 1)),
            byte_prefix(b"k")
        );
    }

    proptest::proptest! {
        /// Where prefixes differ they order the keys exactly as the full comparison does.
        #[test]
        fn differing_prefixes_decide_the_order(
            a in proptest::collection::vec(proptest::sample::select(vec![0u8, 1, 0x7f, 0xff]), 0..11),
            b in proptest::collection::vec(proptest::sample::select(vec![0u8, 1, 0x7f, 0xff]), 0..11),
            seq_a in 0u64..4, seq_b in 0u64..4,
        ) {
            if byte_prefix(&a) != byte_prefix(&b) {
                proptest::prop_assert_eq!(byte_prefix(&a).cmp(&byte_prefix(&b)), a.cmp(&b));
            }
            let (ia, ib) = (internal_key(&a, seq_a, 1), internal_key(&b, seq_b, 1));
            if internal_prefix(&ia) != internal_prefix(&ib) {
                proptest::prop_assert_eq!(
                    internal_prefix(&ia).cmp(&internal_prefix(&ib)),
                    compare_internal(&ia, &ib)
                );
            }
        }
    }
}

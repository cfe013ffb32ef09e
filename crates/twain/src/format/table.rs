//! The SSTable frame: block handles, the properties block and the fixed footer.
//! Specified in `docs/format/sstable.md`.
//!
//! ```text
//! table        := data_block* filter_block? properties_block index_block footer
//! block_handle := offset: varint | size: varint          (size excludes the block trailer)
//! properties   := (tag: varint | value: varint)*         (tags strictly ascending)
//! footer       := filter_handle: (u64 LE, u64 LE) | properties_handle: (u64 LE, u64 LE)
//!               | index_handle: (u64 LE, u64 LE) | format_version: u32 LE
//!               | masked_crc32c: u32 LE (over the 52 bytes before it) | magic: u64 LE
//! ```

use super::block::BLOCK_TRAILER_LEN;
use super::coding::{DecodeError, Decoder, masked_crc, put_varint};

/// Bytes of the footer at the end of every table.
pub const FOOTER_LEN: usize = 64;

/// Bytes of the footer covered by its checksum.
const FOOTER_CRC_COVERS: usize = 52;

/// The last eight bytes of every table: `b"twainSST"` read as a little-endian u64.
///
/// DO NOT CHANGE: it is embedded in every table on disk.
pub const TABLE_MAGIC: u64 = u64::from_le_bytes(*b"twainSST");

/// The table format version written by this build (and the only one it reads).
pub const TABLE_FORMAT_VERSION: u32 = 1;

/// Where a block is in a table file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BlockHandle {
    /// Offset of the block's first byte.
    pub offset: u64,
    /// Size of the block's contents, not counting its [`BLOCK_TRAILER_LEN`]-byte trailer.
    pub size: u64,
}

impl BlockHandle {
    /// The longest varint encoding of a handle.
    pub const MAX_ENCODED_LEN: usize = 20;

    /// A handle for `size` content bytes at `offset`.
    pub fn new(offset: u64, size: u64) -> BlockHandle {
        BlockHandle { offset, size }
    }

    /// Appends the varint encoding (as stored in index entries).
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        put_varint(buf, self.offset);
        put_varint(buf, self.size);
    }

    /// Decodes a varint handle that must fill `buf` exactly.
    pub fn decode(buf: &[u8]) -> Result<BlockHandle, DecodeError> {
        let mut d = Decoder::new(buf);
        let h = BlockHandle {
            offset: d.varint("block offset")?,
            size: d.varint("block size")?,
        };
        if !d.is_empty() {
            return Err(d.error("trailing bytes after block handle"));
        }
        Ok(h)
    }

    /// The offset just past the block's trailer, if it does not overflow.
    pub fn end(&self) -> Option<u64> {
        self.offset
            .checked_add(self.size)?
            .checked_add(BLOCK_TRAILER_LEN as u64)
    }

    /// Whether the handle is the null handle `(0, 0)` (used for "no filter").
    pub fn is_null(&self) -> bool {
        self.offset == 0 && self.size == 0
    }
}

/// The fixed-size footer: where the meta blocks are, and what format the table has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// The filter block, or the null handle if the table has no filter.
    pub filter: BlockHandle,
    /// The properties block.
    pub properties: BlockHandle,
    /// The index block.
    pub index: BlockHandle,
    /// The format version.
    pub format_version: u32,
}

impl Footer {
    /// A footer of the current format version.
    pub fn new(filter: BlockHandle, properties: BlockHandle, index: BlockHandle) -> Footer {
        Footer {
            filter,
            properties,
            index,
            format_version: TABLE_FORMAT_VERSION,
        }
    }

    /// The encoded footer.
    pub fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut v = Vec::with_capacity(FOOTER_LEN);
        for h in [self.filter, self.properties, self.index] {
            v.extend_from_slice(&h.offset.to_le_bytes());
            v.extend_from_slice(&h.size.to_le_bytes());
        }
        v.extend_from_slice(&self.format_version.to_le_bytes());
        let crc = masked_crc(&v);
        v.extend_from_slice(&crc.to_le_bytes());
        v.extend_from_slice(&TABLE_MAGIC.to_le_bytes());
        let mut out = [0u8; FOOTER_LEN];
        out.copy_from_slice(&v);
        out
    }

    /// Decodes a footer. Checks, in order: length, magic (so that a file that is not a table
    /// says so), checksum, format version. Error offsets are relative to the footer's start.
    pub fn decode(buf: &[u8]) -> Result<Footer, DecodeError> {
        if buf.len() != FOOTER_LEN {
            return Err(DecodeError::new(
                0,
                format!("footer is {} bytes, expected {FOOTER_LEN}", buf.len()),
            ));
        }
        let mut d = Decoder::new(buf);
        let mut handle = |what: &str| -> Result<BlockHandle, DecodeError> {
            Ok(BlockHandle {
                offset: d.u64(what)?,
                size: d.u64(what)?,
            })
        };
        let filter = handle("filter handle")?;
        let properties = handle("properties handle")?;
        let index = handle("index handle")?;
        let format_version = d.u32("format version")?;
        let crc = d.u32("footer checksum")?;
        let magic = d.u64("table magic")?;
        if magic != TABLE_MAGIC {
            return Err(DecodeError::new(
                FOOTER_CRC_COVERS + 4,
                format!("bad table magic {magic:#018x}: not a twain table"),
            ));
        }
        let actual = masked_crc(buf.get(..FOOTER_CRC_COVERS).unwrap_or_default());
        if crc != actual {
            return Err(DecodeError::new(0, "footer checksum mismatch"));
        }
        if format_version != TABLE_FORMAT_VERSION {
            return Err(DecodeError::new(
                48,
                format!(
                    "unsupported table format version {format_version} \
                     (this build reads {TABLE_FORMAT_VERSION})"
                ),
            ));
        }
        Ok(Footer {
            filter,
            properties,
            index,
            format_version,
        })
    }
}

/// Tags of the properties block.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in every table on disk. New properties get
/// new tags; readers skip tags they do not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum PropertyTag {
    NumEntries = 1,
    NumDeletions = 2,
    NumInline = 3,
    NumHandles = 4,
    RawKeyBytes = 5,
    RawValueBytes = 6,
    HandleValueBytes = 7,
    SmallestSeq = 8,
    LargestSeq = 9,
    NumDataBlocks = 10,
}

impl PropertyTag {
    /// Every tag, ascending: the order in which properties are written.
    const ALL: [PropertyTag; 10] = [
        PropertyTag::NumEntries,
        PropertyTag::NumDeletions,
        PropertyTag::NumInline,
        PropertyTag::NumHandles,
        PropertyTag::RawKeyBytes,
        PropertyTag::RawValueBytes,
        PropertyTag::HandleValueBytes,
        PropertyTag::SmallestSeq,
        PropertyTag::LargestSeq,
        PropertyTag::NumDataBlocks,
    ];

    /// The tag with value `t`, if this build knows it.
    fn from_u64(t: u64) -> Option<PropertyTag> {
        PropertyTag::ALL.into_iter().find(|&tag| tag as u64 == t)
    }
}

/// Statistics of a table, written in its properties block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableProperties {
    /// Entries of every kind.
    pub num_entries: u64,
    /// Tombstones.
    pub num_deletions: u64,
    /// Entries with an inline value.
    pub num_inline: u64,
    /// Entries with a value handle.
    pub num_handles: u64,
    /// Sum of the user key lengths.
    pub raw_key_bytes: u64,
    /// Sum of the inline value lengths.
    pub raw_value_bytes: u64,
    /// Sum of the `len` of every value handle: the separated bytes the table refers to.
    pub handle_value_bytes: u64,
    /// The smallest sequence number in the table.
    pub smallest_seq: u64,
    /// The largest sequence number in the table.
    pub largest_seq: u64,
    /// Data blocks.
    pub num_data_blocks: u64,
    /// The earliest expiry time of the table's expiring puts (milliseconds since the Unix
    /// epoch), `None` if it holds none. Optional tag 11: written only when present, so
    /// tables without expiring puts are byte for byte as before.
    pub earliest_expiry: Option<u64>,
}

/// The tag of the optional property [`TableProperties::earliest_expiry`].
const EARLIEST_EXPIRY_TAG: u64 = 11;

impl TableProperties {
    /// The property stored under `tag`.
    fn field_mut(&mut self, tag: PropertyTag) -> &mut u64 {
        match tag {
            PropertyTag::NumEntries => &mut self.num_entries,
            PropertyTag::NumDeletions => &mut self.num_deletions,
            PropertyTag::NumInline => &mut self.num_inline,
            PropertyTag::NumHandles => &mut self.num_handles,
            PropertyTag::RawKeyBytes => &mut self.raw_key_bytes,
            PropertyTag::RawValueBytes => &mut self.raw_value_bytes,
            PropertyTag::HandleValueBytes => &mut self.handle_value_bytes,
            PropertyTag::SmallestSeq => &mut self.smallest_seq,
            PropertyTag::LargestSeq => &mut self.largest_seq,
            PropertyTag::NumDataBlocks => &mut self.num_data_blocks,
        }
    }

    /// Appends the encoding: every property as `tag | value`, tags ascending.
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        let mut copy = *self;
        for tag in PropertyTag::ALL {
            put_varint(buf, tag as u64);
            put_varint(buf, *copy.field_mut(tag));
        }
        if let Some(at) = self.earliest_expiry {
            put_varint(buf, EARLIEST_EXPIRY_TAG);
            put_varint(buf, at);
        }
    }

    /// Decodes a properties block's contents. Tags must strictly ascend; unknown tags are
    /// skipped; every known property is required; the kind counts must add up to
    /// `num_entries`.
    pub fn decode(buf: &[u8]) -> Result<TableProperties, DecodeError> {
        let mut p = TableProperties::default();
        let mut seen = 0u32;
        let mut last_tag = 0u64;
        let mut d = Decoder::new(buf);
        while !d.is_empty() {
            let at = d.pos();
            let tag = d.varint("property tag")?;
            if tag <= last_tag {
                return Err(DecodeError::new(
                    at,
                    format!("property tag {tag} after {last_tag}"),
                ));
            }
            last_tag = tag;
            let value = d.varint("property value")?;
            if let Some(known) = PropertyTag::from_u64(tag) {
                *p.field_mut(known) = value;
                seen |= 1 << (known as u8);
            } else if tag == EARLIEST_EXPIRY_TAG {
                p.earliest_expiry = Some(value);
            }
        }
        if let Some(missing) = PropertyTag::ALL
            .into_iter()
            .find(|&t| seen & (1 << (t as u8)) == 0)
        {
            return Err(DecodeError::new(
                0,
                format!("property {missing:?} (tag {}) missing", missing as u8),
            ));
        }
        let kinds = p
            .num_deletions
            .checked_add(p.num_inline)
            .and_then(|s| s.checked_add(p.num_handles));
        if kinds != Some(p.num_entries) || p.smallest_seq > p.largest_seq {
            return Err(DecodeError::new(0, "inconsistent table properties"));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_footer() -> Footer {
        Footer::new(
            BlockHandle::new(4096, 130),
            BlockHandle::new(4231, 25),
            BlockHandle::new(4261, 300),
        )
    }

    fn sample_properties() -> TableProperties {
        TableProperties {
            num_entries: 10,
            num_deletions: 2,
            num_inline: 5,
            num_handles: 3,
            raw_key_bytes: 80,
            raw_value_bytes: 500,
            handle_value_bytes: 30_000,
            smallest_seq: 7,
            largest_seq: 1 << 40,
            num_data_blocks: 1,
            earliest_expiry: None,
        }
    }

    #[test]
    fn handle_round_trips() {
        let h = BlockHandle::new(1 << 35, 4000);
        let mut buf = Vec::new();
        h.encode_to(&mut buf);
        assert!(buf.len() <= BlockHandle::MAX_ENCODED_LEN);
        assert_eq!(BlockHandle::decode(&buf), Ok(h));
        buf.push(0);
        assert!(BlockHandle::decode(&buf).is_err());
        assert!(BlockHandle::decode(&[0x80]).is_err());
        assert_eq!(BlockHandle::new(u64::MAX, 1).end(), None);
    }

    #[test]
    fn footer_round_trips_and_ends_with_the_magic_bytes() {
        let f = sample_footer();
        let bytes = f.encode();
        assert_eq!(&bytes[56..], b"twainSST");
        assert_eq!(Footer::decode(&bytes), Ok(f));
    }

    #[test]
    fn footer_damage_is_detected_in_every_byte() {
        let bytes = sample_footer().encode();
        for i in 0..FOOTER_LEN {
            let mut bad = bytes;
            bad[i] ^= 0x20;
            let err = Footer::decode(&bad).unwrap_err();
            assert!(err.offset < FOOTER_LEN, "byte {i}");
        }
        assert!(Footer::decode(&bytes[1..]).is_err());
    }

    #[test]
    fn footer_with_wrong_magic_says_not_a_table() {
        let mut bytes = sample_footer().encode();
        bytes[56..].copy_from_slice(b"twainVLG");
        let err = Footer::decode(&bytes).unwrap_err();
        assert_eq!(err.offset, 56);
        assert!(err.what.contains("not a twain table"));
    }

    #[test]
    fn future_format_version_is_rejected() {
        let mut f = sample_footer();
        f.format_version = 2;
        let err = Footer::decode(&f.encode()).unwrap_err();
        assert_eq!(err.offset, 48);
    }

    #[test]
    fn properties_round_trip() {
        let p = sample_properties();
        let mut buf = Vec::new();
        p.encode_to(&mut buf);
        assert_eq!(TableProperties::decode(&buf), Ok(p));
    }

    #[test]
    fn unknown_property_tags_are_skipped() {
        let p = sample_properties();
        let mut buf = Vec::new();
        p.encode_to(&mut buf);
        put_varint(&mut buf, 12);
        put_varint(&mut buf, 12345);
        assert_eq!(TableProperties::decode(&buf), Ok(p));
    }

    #[test]
    fn the_earliest_expiry_is_optional_and_round_trips() {
        let plain = sample_properties();
        let mut without = Vec::new();
        plain.encode_to(&mut without);
        let p = TableProperties {
            earliest_expiry: Some(1_900_000_000_000),
            ..plain
        };
        let mut with = Vec::new();
        p.encode_to(&mut with);
        assert!(
            with.starts_with(&without),
            "tags 1 to 10 are written as before"
        );
        assert_eq!(TableProperties::decode(&with), Ok(p));
        assert_eq!(TableProperties::decode(&without), Ok(plain));
    }

    #[test]
    fn missing_or_unordered_properties_are_errors() {
        let mut buf = Vec::new();
        sample_properties().encode_to(&mut buf);
        // Drop the last pair (tag 10, value 1).
        assert!(TableProperties::decode(&buf[..buf.len() - 2]).is_err());
        // Repeat the first tag at the end.
        let mut dup = buf.clone();
        dup.extend_from_slice(&[1, 0]);
        assert!(TableProperties::decode(&dup).is_err());
        // Truncated varint.
        let mut trunc = buf;
        trunc.push(0x80);
        assert!(TableProperties::decode(&trunc).is_err());
    }

    #[test]
    fn inconsistent_kind_counts_are_errors() {
        let mut p = sample_properties();
        p.num_inline += 1;
        let mut buf = Vec::new();
        p.encode_to(&mut buf);
        assert!(TableProperties::decode(&buf).is_err());
    }
}

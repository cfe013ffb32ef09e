//! SVTables: a value file rewritten by value GC, sorted by key. Specified in
//! `docs/format/svtable.md`.
//!
//! ```text
//! svtable := file_header(SvTable, file_number) entry* index_block footer
//! entry := a separated entry, exactly as in the value log (see vlog.rs)
//! index_block := block(keyed_block) | block_type: u8 | masked_crc32c: u32 LE (see block.rs)
//!     keys: internal keys user_key ++ trailer(seq << 8 | 2), ascending (user key, then
//!           sequence descending); values: offset: varint | len: varint of the entry
//! footer := index_offset: u64 | index_size: u64 | entry_count: u64 | entry_bytes: u64
//!         | epoch: u32 | format_version: u32 | masked_crc32c: u32 | magic: u64   (LE)
//! ```
//! The footer's checksum covers the 40 bytes before it. A value handle with this file's
//! epoch points straight at an entry; an older handle finds its entry through the index by
//! (key, sequence).

use super::coding::{DecodeError, Decoder, masked_crc, put_varint};
use super::file_header::FORMAT_VERSION;

/// Bytes of the footer.
pub const SVT_FOOTER_LEN: usize = 52;

/// The footer's format version of a hash-layout segment, the one kind of SVTable whose
/// index may hold tombstones (`docs/format/svtable.md`). Other SVTables carry
/// [`FORMAT_VERSION`].
///
/// DO NOT CHANGE: embedded in files on disk.
pub const SEGMENT_FORMAT_VERSION: u32 = 2;

/// The footer's last 8 bytes: ASCII `twainSVT`.
///
/// DO NOT CHANGE: embedded in files on disk.
pub const SVT_MAGIC: u64 = u64::from_le_bytes(*b"twainSVT");

/// The footer of an SVTable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SvtFooter {
    /// Offset of the index block.
    pub index_offset: u64,
    /// Size of the index block's contents (without its 5-byte trailer).
    pub index_size: u64,
    /// Number of entries.
    pub entry_count: u64,
    /// Bytes of all entries.
    pub entry_bytes: u64,
    /// The epoch of the value file this table is.
    pub epoch: u32,
    /// Whether it is a hash-layout segment (format version [`SEGMENT_FORMAT_VERSION`]):
    /// its index may hold tombstones.
    pub segment: bool,
}

impl SvtFooter {
    /// Encodes the footer.
    pub fn encode(&self) -> [u8; SVT_FOOTER_LEN] {
        let mut v = Vec::with_capacity(SVT_FOOTER_LEN);
        v.extend_from_slice(&self.index_offset.to_le_bytes());
        v.extend_from_slice(&self.index_size.to_le_bytes());
        v.extend_from_slice(&self.entry_count.to_le_bytes());
        v.extend_from_slice(&self.entry_bytes.to_le_bytes());
        v.extend_from_slice(&self.epoch.to_le_bytes());
        let version = if self.segment {
            SEGMENT_FORMAT_VERSION
        } else {
            FORMAT_VERSION
        };
        v.extend_from_slice(&version.to_le_bytes());
        let crc = masked_crc(&v);
        v.extend_from_slice(&crc.to_le_bytes());
        v.extend_from_slice(&SVT_MAGIC.to_le_bytes());
        let mut out = [0u8; SVT_FOOTER_LEN];
        out.copy_from_slice(&v);
        out
    }

    /// Decodes and checks a footer.
    pub fn decode(buf: &[u8]) -> Result<SvtFooter, DecodeError> {
        if buf.len() != SVT_FOOTER_LEN {
            return Err(DecodeError::new(0, "SVTable footer has the wrong length"));
        }
        let mut d = Decoder::new(buf);
        let f = SvtFooter {
            index_offset: d.u64("index offset")?,
            index_size: d.u64("index size")?,
            entry_count: d.u64("entry count")?,
            entry_bytes: d.u64("entry bytes")?,
            epoch: d.u32("epoch")?,
            segment: false,
        };
        let version = d.u32("format version")?;
        let crc = d.u32("footer checksum")?;
        let magic = d.u64("magic")?;
        if magic != SVT_MAGIC {
            return Err(DecodeError::new(44, "bad SVTable magic"));
        }
        if masked_crc(buf.get(..40).unwrap_or_default()) != crc {
            return Err(DecodeError::new(40, "SVTable footer checksum mismatch"));
        }
        match version {
            FORMAT_VERSION => Ok(f),
            SEGMENT_FORMAT_VERSION => Ok(SvtFooter { segment: true, ..f }),
            _ => Err(DecodeError::new(
                36,
                format!("unsupported SVTable format version {version}"),
            )),
        }
    }
}

/// Encodes an index value: the entry's offset and length.
pub fn encode_index_value(buf: &mut Vec<u8>, offset: u64, len: u32) {
    put_varint(buf, offset);
    put_varint(buf, u64::from(len));
}

/// Decodes an index value.
pub fn decode_index_value(buf: &[u8]) -> Result<(u64, u32), DecodeError> {
    let mut d = Decoder::new(buf);
    let offset = d.varint("entry offset")?;
    let len = d.varint_u32("entry length")?;
    if !d.is_empty() {
        return Err(d.error("trailing bytes after an SVTable index value"));
    }
    Ok((offset, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_round_trips_and_detects_damage() {
        let f = SvtFooter {
            index_offset: 1 << 20,
            index_size: 4000,
            entry_count: 900,
            entry_bytes: 1_000_000,
            epoch: 3,
            segment: false,
        };
        let enc = f.encode();
        assert_eq!(SvtFooter::decode(&enc), Ok(f));
        let seg = SvtFooter { segment: true, ..f };
        assert_eq!(SvtFooter::decode(&seg.encode()), Ok(seg));
        assert_ne!(seg.encode(), enc, "the format version tells them apart");
        for i in 0..SVT_FOOTER_LEN {
            let mut bad = enc;
            bad[i] ^= 0x20;
            assert!(SvtFooter::decode(&bad).is_err(), "byte {i}");
        }
    }

    #[test]
    fn index_values_round_trip() {
        let mut b = Vec::new();
        encode_index_value(&mut b, 123_456, 1040);
        assert_eq!(decode_index_value(&b), Ok((123_456, 1040)));
        b.push(1);
        assert!(decode_index_value(&b).is_err());
    }
}

//! Compressed block contents: the codecs a block's type byte names (`BlockType`) and the
//! stored form of compressed contents. Specified in `docs/format/sstable.md`
//! ("Compression").
//!
//! ```text
//! stored := raw_len: varint | codec output      (block types 1 = LZ4 block format, 2 = zstd frame)
//! ```
//! `raw_len` is the length of the contents before compression, at most
//! [`MAX_RAW_LEN`]: a reader allocates no more than that, whatever the bytes say. A block is
//! stored compressed only when that saves at least an eighth of its bytes; otherwise it is
//! stored plain (type 0), so incompressible data costs nothing to read.
//!
//! A separated value may be stored compressed too (`docs/format/value-log.md`,
//! "Compressed values"): its entry's value bytes are then
//! ```text
//! compressed_value := codec: u8 (1 = LZ4, 2 = zstd, as block types) | stored
//! ```
//! with `raw_len` at most `MAX_VALUE_SIZE`.

use super::block::BlockType;
use super::coding::{DecodeError, Decoder, put_varint};

/// Most bytes a compressed block's contents may hold once decompressed: a data block holds
/// at most one entry past `block_size` (at most 16 MiB), and an entry at most the largest
/// key plus the largest value (67,174,400 bytes) with its framing.
pub const MAX_RAW_LEN: u64 = 128 << 20;

/// The zstd level twain compresses at (zstd's own default).
pub const ZSTD_LEVEL: i32 = 3;

/// A codec for table blocks, as the options name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Compression {
    /// Blocks are stored as they are.
    #[default]
    None,
    /// LZ4 (block format): fast to compress and to read, about 2x on text-like data.
    Lz4,
    /// zstd at level 3: smaller than LZ4, slower to compress and about half as fast to read.
    Zstd,
}

impl Compression {
    /// Parses `none`, `lz4` or `zstd`.
    pub fn parse(s: &str) -> Option<Compression> {
        match s.trim() {
            "none" => Some(Compression::None),
            "lz4" => Some(Compression::Lz4),
            "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The name [`parse`](Self::parse) takes.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Compresses `raw` with `codec` into `out` (cleared first) in the stored form, if that
/// saves at least an eighth; returns the block type to write, and leaves `out` empty for a
/// plain block.
pub fn compress(codec: Compression, raw: &[u8], out: &mut Vec<u8>) -> BlockType {
    out.clear();
    let block_type = match codec {
        Compression::None => return BlockType::Plain,
        Compression::Lz4 => BlockType::Lz4,
        Compression::Zstd => BlockType::Zstd,
    };
    put_varint(out, raw.len() as u64);
    let header = out.len();
    let ok = match codec {
        Compression::None => false,
        Compression::Lz4 => {
            out.resize(
                header + lz4_flex::block::get_maximum_output_size(raw.len()),
                0,
            );
            match lz4_flex::block::compress_into(raw, out.get_mut(header..).unwrap_or_default()) {
                Ok(n) => {
                    out.truncate(header + n);
                    true
                }
                Err(_) => false,
            }
        }
        Compression::Zstd => {
            out.resize(header + zstd::zstd_safe::compress_bound(raw.len()), 0);
            let n = zstd_compress(raw, out.get_mut(header..).unwrap_or_default());
            out.truncate(header + n.unwrap_or(0));
            n.is_some()
        }
    };
    if ok && out.len() <= raw.len() - raw.len() / 8 {
        block_type
    } else {
        out.clear();
        BlockType::Plain
    }
}

thread_local! {
    /// One zstd compression context per thread, made at its first block and reused: a
    /// context is hundreds of KiB, too much to allocate per block.
    static ZSTD: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Compresses `raw` into `dest` with this thread's context; the bytes written, or `None`
/// if zstd failed (then the block is stored plain).
fn zstd_compress(raw: &[u8], dest: &mut [u8]) -> Option<usize> {
    ZSTD.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = Some(zstd::bulk::Compressor::new(ZSTD_LEVEL).ok()?);
        }
        slot.as_mut()?.compress_to_buffer(raw, dest).ok()
    })
}

thread_local! {
    /// One zstd decompression context per thread, reused as [`ZSTD`] is.
    static UNZSTD: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Decompresses the zstd frame `body` into `dest` with this thread's context; the bytes
/// written. A frame that decodes to more than `dest` holds is an error.
fn zstd_decompress(body: &[u8], dest: &mut [u8]) -> std::io::Result<usize> {
    UNZSTD.with(|cell| {
        let mut slot = cell
            .try_borrow_mut()
            .map_err(|_| std::io::Error::other("zstd context in use"))?;
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new()?);
        }
        match slot.as_mut() {
            Some(d) => d.decompress_to_buffer(body, dest),
            None => Err(std::io::Error::other("no zstd context")),
        }
    })
}

/// The contents of a block stored as `stored` with type `block_type`. Errors (offsets
/// within `stored`) for a length over [`MAX_RAW_LEN`], damaged codec output, or output of
/// another length than the block says.
pub fn decompress(block_type: BlockType, stored: &[u8]) -> Result<Vec<u8>, DecodeError> {
    if block_type == BlockType::Plain {
        return Ok(stored.to_vec());
    }
    let mut d = Decoder::new(stored);
    let raw_len = d.varint("uncompressed length")?;
    if raw_len > MAX_RAW_LEN {
        return Err(DecodeError::new(
            0,
            format!("uncompressed length {raw_len} is over {MAX_RAW_LEN}"),
        ));
    }
    let at = d.pos();
    let body = stored.get(at..).unwrap_or_default();
    let raw_len = raw_len as usize;
    let damaged = |what: String| DecodeError::new(at, what);
    let raw = match block_type {
        // Returned above.
        BlockType::Plain => body.to_vec(),
        BlockType::Lz4 => {
            let mut raw = vec![0u8; raw_len];
            let n = lz4_flex::block::decompress_into(body, &mut raw)
                .map_err(|e| damaged(format!("LZ4 data does not decode: {e}")))?;
            raw.truncate(n);
            raw
        }
        BlockType::Zstd => {
            let mut raw = vec![0u8; raw_len];
            let n = zstd_decompress(body, &mut raw)
                .map_err(|e| damaged(format!("zstd data does not decode: {e}")))?;
            raw.truncate(n);
            raw
        }
    };
    if raw.len() != raw_len {
        return Err(damaged(format!(
            "decompressed to {} bytes, the block says {raw_len}",
            raw.len()
        )));
    }
    Ok(raw)
}

/// A separated value as its entry stores it: the value's own bytes, or its compressed form
/// (kind `0x05`, `docs/format/value-log.md`). Copies of an entry (value GC, relocation)
/// keep the stored form: a value is compressed once, when it is first separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredValue<'a> {
    /// The bytes the entry holds as its value.
    pub bytes: &'a [u8],
    /// Whether `bytes` is a `compressed_value` rather than the value itself.
    pub compressed: bool,
}

impl<'a> StoredValue<'a> {
    /// A value stored as it is.
    pub fn plain(bytes: &'a [u8]) -> StoredValue<'a> {
        StoredValue {
            bytes,
            compressed: false,
        }
    }

    /// The value itself: `bytes`, or `bytes` decompressed.
    pub fn value(&self) -> Result<std::borrow::Cow<'a, [u8]>, DecodeError> {
        if self.compressed {
            decompress_value(self.bytes).map(std::borrow::Cow::Owned)
        } else {
            Ok(std::borrow::Cow::Borrowed(self.bytes))
        }
    }
}

/// Compresses a value about to be separated into `out` (cleared first) as a
/// `compressed_value`, if `codec` is not `None`, that saves at least an eighth of its
/// bytes, and the stored form is at least `floor` bytes (so that the entry stays in the
/// placement class its raw size chose); returns whether `out` holds it.
pub fn compress_value(codec: Compression, raw: &[u8], floor: usize, out: &mut Vec<u8>) -> bool {
    out.clear();
    if codec == Compression::None || raw.is_empty() {
        return false;
    }
    let mut body = Vec::new();
    let block_type = compress(codec, raw, &mut body);
    if block_type == BlockType::Plain || body.len() + 1 < floor {
        return false;
    }
    out.reserve(body.len() + 1);
    out.push(block_type as u8);
    out.extend_from_slice(&body);
    // `compress` saved an eighth of the bytes; the codec byte must not undo it.
    if out.len() > raw.len() - raw.len() / 8 {
        out.clear();
        return false;
    }
    true
}

/// The value a `compressed_value` holds. Errors (offsets within `stored`) for an unknown
/// codec, a length over `MAX_VALUE_SIZE`, damaged codec output, or output of another
/// length than it says.
pub fn decompress_value(stored: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut d = Decoder::new(stored);
    let codec = d.u8("value codec")?;
    let block_type = match BlockType::try_from(codec) {
        Ok(t @ (BlockType::Lz4 | BlockType::Zstd)) => t,
        _ => {
            return Err(DecodeError::new(0, format!("unknown value codec {codec}")));
        }
    };
    let at = d.pos();
    let body = stored.get(at..).unwrap_or_default();
    let raw_len = Decoder::new(body).varint("uncompressed length")?;
    if raw_len > crate::options::MAX_VALUE_SIZE as u64 {
        return Err(DecodeError::new(
            at,
            format!(
                "uncompressed value length {raw_len} is over {}",
                crate::options::MAX_VALUE_SIZE
            ),
        ));
    }
    decompress(block_type, body).map_err(|e| DecodeError::new(e.offset + at, e.what))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("user{:08} ", i % 97))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn compressible_blocks_round_trip_through_every_codec() {
        let raw = text(400);
        for codec in [Compression::Lz4, Compression::Zstd] {
            let mut out = Vec::new();
            let t = compress(codec, &raw, &mut out);
            assert_ne!(t, BlockType::Plain, "{codec:?}");
            assert!(out.len() < raw.len() / 2, "{codec:?}: {}", out.len());
            assert_eq!(decompress(t, &out).unwrap(), raw);
        }
        let mut out = vec![1, 2, 3];
        assert_eq!(
            compress(Compression::None, &raw, &mut out),
            BlockType::Plain
        );
        assert!(out.is_empty());
    }

    #[test]
    fn incompressible_blocks_stay_plain() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let raw: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for codec in [Compression::Lz4, Compression::Zstd] {
            let mut out = Vec::new();
            assert_eq!(compress(codec, &raw, &mut out), BlockType::Plain);
            assert!(out.is_empty());
        }
    }

    #[test]
    fn damaged_or_oversized_blocks_are_errors_without_big_allocations() {
        let raw = text(400);
        for codec in [Compression::Lz4, Compression::Zstd] {
            let mut stored = Vec::new();
            let t = compress(codec, &raw, &mut stored);
            // A length past the bound is refused before anything is allocated.
            let mut big = Vec::new();
            put_varint(&mut big, MAX_RAW_LEN + 1);
            big.extend_from_slice(&stored[2..]);
            assert!(decompress(t, &big).is_err());
            // A length that disagrees with the data.
            let mut short = Vec::new();
            put_varint(&mut short, raw.len() as u64 - 1);
            short.extend_from_slice(&stored[2..]);
            assert!(decompress(t, &short).is_err(), "{codec:?}");
            // Truncated codec output.
            assert!(
                decompress(t, &stored[..stored.len() / 2]).is_err(),
                "{codec:?}"
            );
            assert!(decompress(t, &[]).is_err());
        }
    }

    #[test]
    fn names_parse() {
        for c in [Compression::None, Compression::Lz4, Compression::Zstd] {
            assert_eq!(Compression::parse(c.name()), Some(c));
        }
        assert_eq!(Compression::parse("snappy"), None);
    }

    #[test]
    fn values_round_trip_compressed_only_where_it_pays_and_stays_in_class() {
        let raw = text(100);
        for codec in [Compression::Lz4, Compression::Zstd] {
            let mut out = Vec::new();
            assert!(compress_value(codec, &raw, 0, &mut out), "{codec:?}");
            assert!(out.len() < raw.len() / 2, "{codec:?}: {} bytes", out.len());
            assert_eq!(decompress_value(&out).unwrap(), raw);
            // Below the class floor: stored plain.
            assert!(!compress_value(codec, &raw, out.len() + 1, &mut out));
            assert!(out.is_empty());
        }
        let mut out = Vec::new();
        assert!(!compress_value(Compression::None, &raw, 0, &mut out));
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..4000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        assert!(!compress_value(Compression::Lz4, &random, 0, &mut out));
        assert!(!compress_value(Compression::Lz4, &[], 0, &mut out));
    }

    #[test]
    fn damaged_compressed_values_are_errors() {
        let raw = text(100);
        let mut good = Vec::new();
        assert!(compress_value(Compression::Lz4, &raw, 0, &mut good));
        // An unknown or plain codec byte.
        for codec in [0u8, 3, 200] {
            let mut bad = good.clone();
            bad[0] = codec;
            assert!(decompress_value(&bad).is_err(), "codec {codec}");
        }
        // A length over the largest value, before anything is allocated.
        let mut huge = vec![1u8];
        put_varint(&mut huge, crate::options::MAX_VALUE_SIZE as u64 + 1);
        huge.extend_from_slice(&good[2..]);
        let e = decompress_value(&huge).unwrap_err();
        assert!(e.what.contains("over"), "{}", e.what);
        // Truncated or flipped codec output.
        assert!(decompress_value(&good[..good.len() - 3]).is_err());
        assert!(decompress_value(&[]).is_err());
        for i in 1..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x41;
            if let Ok(v) = decompress_value(&bad) {
                // LZ4 has no checksum of its own: the entry's CRC catches such damage.
                assert_eq!(v.len(), raw.len());
            }
        }
    }
}

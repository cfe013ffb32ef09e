//! Primitive encodings shared by every format: little-endian fixed-width integers,
//! LEB128 varints, length-prefixed byte strings and masked CRC-32C checksums.

/// Appends a LEB128 varint (7 bits per byte, low bits first, high bit = more follows).
pub fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Appends a varint length followed by the bytes.
pub fn put_len_prefixed(buf: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(buf, bytes.len() as u64);
    buf.extend_from_slice(bytes);
}

/// The number of bytes [`put_varint`] writes for `v`.
pub fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Added to a rotated CRC before it is stored (see [`mask_crc`]).
const CRC_MASK_DELTA: u32 = 0xa282_ead8;

/// Masks a CRC before storing it, so that a CRC computed over bytes that embed other CRCs
/// stays well distributed: `rotate_right(crc, 15) + 0xa282ead8` (wrapping).
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(CRC_MASK_DELTA)
}

/// Inverse of [`mask_crc`].
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(CRC_MASK_DELTA).rotate_left(15)
}

/// The masked CRC-32C (Castagnoli) of `data`.
pub fn masked_crc(data: &[u8]) -> u32 {
    mask_crc(crc32c::crc32c(data))
}

/// A decode failure: what was wrong and at which offset of the decoded buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Offset in the buffer being decoded.
    pub offset: usize,
    /// What was wrong.
    pub what: String,
}

impl DecodeError {
    /// A decode error at `offset`.
    pub fn new(offset: usize, what: impl Into<String>) -> DecodeError {
        DecodeError {
            offset,
            what: what.into(),
        }
    }

    /// Converts into a corruption error of `file`, whose buffer started at `base`.
    pub fn into_corruption(self, file: &std::path::Path, base: u64) -> crate::Error {
        crate::Error::corruption(file, base + self.offset as u64, self.what)
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.what, self.offset)
    }
}

/// A cursor that decodes primitives from a byte slice, never panicking.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Decoder<'a> {
        Decoder { buf, pos: 0 }
    }

    /// The current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether everything has been consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error at the current offset.
    pub fn error(&self, what: impl Into<String>) -> DecodeError {
        DecodeError::new(self.pos, what)
    }

    /// Takes the next `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| self.error(format!("truncated {what}")))?;
        let out = self.buf.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        Ok(out)
    }

    /// Takes a fixed-size array.
    pub fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], DecodeError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N, what)?);
        Ok(a)
    }

    /// A byte.
    pub fn u8(&mut self, what: &str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A little-endian u32.
    pub fn u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// A little-endian u64.
    pub fn u64(&mut self, what: &str) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A LEB128 varint of at most 64 bits.
    pub fn varint(&mut self, what: &str) -> Result<u64, DecodeError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.buf.get(self.pos) else {
                self.pos = start;
                return Err(self.error(format!("truncated varint {what}")));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                self.pos = start;
                return Err(self.error(format!("varint {what} overflows 64 bits")));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        self.pos = start;
        Err(self.error(format!("varint {what} too long")))
    }

    /// A varint that must fit in `u32`.
    pub fn varint_u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        let start = self.pos;
        let v = self.varint(what)?;
        u32::try_from(v).map_err(|_| DecodeError::new(start, format!("{what} {v} exceeds u32")))
    }

    /// A varint used as a length or count, bounded by `max`.
    pub fn varint_len(&mut self, max: usize, what: &str) -> Result<usize, DecodeError> {
        let start = self.pos;
        let v = self.varint(what)?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| DecodeError::new(start, format!("{what} {v} exceeds limit {max}")))
    }

    /// A varint length followed by that many bytes.
    pub fn len_prefixed(&mut self, what: &str) -> Result<&'a [u8], DecodeError> {
        let n = self.varint_len(self.remaining(), what)?;
        self.bytes(n, what)
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = self.buf.get(self.pos..).unwrap_or_default();
        self.pos = self.buf.len();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn varint_examples() {
        let mut b = Vec::new();
        put_varint(&mut b, 300);
        assert_eq!(b, [0xac, 0x02]);
        assert_eq!(varint_len(300), 2);
        assert_eq!(Decoder::new(&b).varint("x"), Ok(300));
    }

    #[test]
    fn overlong_varint_is_an_error() {
        let b = [0xffu8; 11];
        assert!(Decoder::new(&b).varint("x").is_err());
        let b = [0xffu8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert!(Decoder::new(&b).varint("x").is_err());
    }

    #[test]
    fn crc_mask_round_trips() {
        for c in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert_eq!(unmask_crc(mask_crc(c)), c);
        }
    }

    proptest! {
        #[test]
        fn varint_round_trips(v: u64) {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            prop_assert_eq!(b.len(), varint_len(v));
            let mut d = Decoder::new(&b);
            prop_assert_eq!(d.varint("v"), Ok(v));
            prop_assert!(d.is_empty());
        }

        #[test]
        fn decoder_never_panics(bytes: Vec<u8>) {
            let mut d = Decoder::new(&bytes);
            let _ = d.varint("a");
            let _ = d.len_prefixed("b");
            let _ = d.u32("c");
            let _ = d.u64("d");
        }
    }
}

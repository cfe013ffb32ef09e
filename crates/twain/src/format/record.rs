//! The checksummed frame that every log-structured file (value log, manifest, drop file)
//! wraps its records in. Specified in `docs/format/record.md`.
//!
//! ```text
//! frame := masked_crc32c: u32 LE | len: u32 LE | payload: [u8; len]
//! ```
//! The CRC covers the four `len` bytes and the payload, and is masked (see
//! [`mask_crc`](super::coding::mask_crc)).

use super::coding::masked_crc;

/// Bytes of a frame header: CRC and length.
pub const FRAME_HEADER_LEN: usize = 8;

/// The largest payload a frame may carry (1 GiB).
pub const MAX_FRAME_PAYLOAD: usize = 1 << 30;

/// Starts a frame at the end of `buf`: reserves the header and returns the frame's start.
/// Append the payload, then call [`finish_frame`].
pub fn begin_frame(buf: &mut Vec<u8>) -> usize {
    let start = buf.len();
    buf.extend_from_slice(&[0u8; FRAME_HEADER_LEN]);
    start
}

/// Fills in the header of the frame begun at `start`, covering everything appended since.
///
/// REQUIRES: the payload is at most [`MAX_FRAME_PAYLOAD`] bytes (callers check limits first).
pub fn finish_frame(buf: &mut [u8], start: usize) {
    let payload_len = buf.len() - start - FRAME_HEADER_LEN;
    debug_assert!(payload_len <= MAX_FRAME_PAYLOAD);
    let len_bytes = (payload_len as u32).to_le_bytes();
    if let Some(len_slot) = buf.get_mut(start + 4..start + 8) {
        len_slot.copy_from_slice(&len_bytes);
    }
    let crc = buf.get(start + 4..).map(masked_crc).unwrap_or_default();
    if let Some(crc_slot) = buf.get_mut(start..start + 4) {
        crc_slot.copy_from_slice(&crc.to_le_bytes());
    }
}

/// Appends a whole frame around `payload`.
pub fn put_frame(buf: &mut Vec<u8>, payload: &[u8]) {
    let start = begin_frame(buf);
    buf.extend_from_slice(payload);
    finish_frame(buf, start);
}

/// What decoding a frame at the start of a buffer found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A good frame: its payload and its total length including the header.
    Good {
        /// The payload bytes.
        payload: &'a [u8],
        /// Header plus payload length.
        frame_len: usize,
    },
    /// The buffer ends before the frame does (a torn tail, or a short read).
    Truncated {
        /// How many bytes the frame claims to need (0 if even the header is incomplete).
        needed: usize,
    },
    /// The frame is complete but its checksum does not match, or its length is impossible.
    Bad {
        /// What was wrong.
        what: &'static str,
    },
}

/// Decodes the frame at the start of `buf`.
pub fn decode_frame(buf: &[u8]) -> Frame<'_> {
    let (Some(crc), Some(len)) = (buf.get(0..4), buf.get(4..8)) else {
        return Frame::Truncated { needed: 0 };
    };
    let mut a = [0u8; 4];
    a.copy_from_slice(len);
    let len = u32::from_le_bytes(a) as usize;
    if len > MAX_FRAME_PAYLOAD {
        return Frame::Bad {
            what: "frame length exceeds the 1 GiB limit",
        };
    }
    let frame_len = FRAME_HEADER_LEN + len;
    let Some(covered) = buf.get(4..frame_len) else {
        return Frame::Truncated { needed: frame_len };
    };
    a.copy_from_slice(crc);
    if u32::from_le_bytes(a) != masked_crc(covered) {
        return Frame::Bad {
            what: "frame checksum mismatch",
        };
    }
    Frame::Good {
        payload: covered.get(4..).unwrap_or_default(),
        frame_len,
    }
}

/// The offset of the first intact frame that starts after `from`, if any.
///
/// In files where each frame is synced before the next one is written (manifests, drop
/// files), only the last frame can be torn by a crash: an intact frame after damaged bytes
/// proves the damage is corruption, not a torn tail.
pub fn next_good_frame(buf: &[u8], from: usize) -> Option<usize> {
    (from + 1..buf.len()).find(|&at| {
        matches!(
            decode_frame(buf.get(at..).unwrap_or_default()),
            Frame::Good { .. }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_trip_and_damage() {
        let mut buf = Vec::new();
        put_frame(&mut buf, b"hello");
        assert_eq!(buf.len(), FRAME_HEADER_LEN + 5);
        assert_eq!(
            decode_frame(&buf),
            Frame::Good {
                payload: b"hello",
                frame_len: 13
            }
        );
        assert_eq!(decode_frame(&buf[..10]), Frame::Truncated { needed: 13 });
        assert_eq!(decode_frame(&buf[..3]), Frame::Truncated { needed: 0 });
        buf[9] ^= 1;
        assert!(matches!(decode_frame(&buf), Frame::Bad { .. }));
    }

    #[test]
    fn finds_intact_frames_after_damage() {
        let mut buf = Vec::new();
        put_frame(&mut buf, b"one");
        let second = buf.len();
        put_frame(&mut buf, b"two");
        buf[2] ^= 0xff;
        assert_eq!(next_good_frame(&buf, 0), Some(second));
        assert_eq!(next_good_frame(&buf, second), None);
    }

    #[test]
    fn zeroes_are_not_a_frame() {
        assert!(matches!(decode_frame(&[0u8; 64]), Frame::Bad { .. }));
    }

    proptest! {
        #[test]
        fn any_bytes_decode_without_panic(bytes: Vec<u8>) {
            let _ = decode_frame(&bytes);
        }

        #[test]
        fn single_bit_flips_are_detected(payload: Vec<u8>, bit: usize) {
            let mut buf = Vec::new();
            put_frame(&mut buf, &payload);
            let bit = bit % (buf.len() * 8);
            buf[bit / 8] ^= 1 << (bit % 8);
            let good = matches!(decode_frame(&buf), Frame::Good { .. });
            prop_assert!(!good);
        }
    }
}

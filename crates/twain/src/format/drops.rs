//! Drop files: the drop records of one value file. Specified in `docs/format/drops.md`.
//!
//! ```text
//! drop_file := file_header(Drops, value_file_number) frame(drop_block)*
//! drop_block := count: varint (seq_delta: varint len: varint){count}
//! ```
//! Sequence numbers within a block are strictly ascending; the first delta is from 0.
//! A drop record `(seq, len)` says that the separated entry with that sequence number in
//! the value file is no longer referenced by the key store; `len` is its size in bytes.
//! Drop files are sets: a record that appears twice (a compaction redone after a crash)
//! counts once.

use super::coding::{DecodeError, Decoder, put_varint};
use crate::key::SeqNo;

/// Encodes a drop block. REQUIRES: `drops` sorted by strictly ascending sequence.
pub fn encode_block(drops: &[(SeqNo, u32)]) -> Vec<u8> {
    let mut b = Vec::with_capacity(drops.len() * 6 + 4);
    put_varint(&mut b, drops.len() as u64);
    let mut prev = 0;
    for &(seq, len) in drops {
        debug_assert!(seq >= prev);
        put_varint(&mut b, seq - prev);
        put_varint(&mut b, u64::from(len));
        prev = seq;
    }
    b
}

/// Decodes a drop block.
pub fn decode_block(buf: &[u8]) -> Result<Vec<(SeqNo, u32)>, DecodeError> {
    let mut d = Decoder::new(buf);
    let count = d.varint_len(buf.len(), "drop count")?;
    let mut out = Vec::with_capacity(count);
    let mut prev: SeqNo = 0;
    for i in 0..count {
        let at = d.pos();
        let delta = d.varint("sequence delta")?;
        if i > 0 && delta == 0 {
            return Err(DecodeError::new(
                at,
                "drop sequences not strictly ascending",
            ));
        }
        let seq = prev
            .checked_add(delta)
            .ok_or_else(|| DecodeError::new(at, "drop sequence overflows"))?;
        out.push((seq, d.varint_u32("dropped length")?));
        prev = seq;
    }
    if !d.is_empty() {
        return Err(d.error("bytes after the last drop record"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_trip() {
        let drops = vec![(3, 1040), (4, 1040), (900, 70)];
        assert_eq!(decode_block(&encode_block(&drops)), Ok(drops));
        assert_eq!(decode_block(&encode_block(&[])), Ok(vec![]));
    }

    #[test]
    fn repeated_sequence_is_rejected() {
        let mut b = Vec::new();
        put_varint(&mut b, 2);
        put_varint(&mut b, 5);
        put_varint(&mut b, 10);
        put_varint(&mut b, 0);
        put_varint(&mut b, 10);
        assert!(decode_block(&b).is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes: Vec<u8>) {
            let _ = decode_block(&bytes);
        }
    }
}

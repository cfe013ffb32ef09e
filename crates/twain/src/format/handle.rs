//! Value handles: where a separated value lives. Specified in `docs/format/sstable.md`.
//!
//! ```text
//! handle := file_number: varint | epoch: varint | offset: varint | len: varint
//! ```

use super::coding::{DecodeError, Decoder, put_varint};

/// Points at one separated-value entry of a value file.
///
/// `(file, seq)` identifies a value record for its whole life; `epoch` says which physical
/// incarnation of file `file` the `offset` refers to (0 for the original value log file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValueHandle {
    /// The value file's number.
    pub file: u64,
    /// The file's epoch when the handle was made.
    pub epoch: u32,
    /// Byte offset of the entry in the file.
    pub offset: u64,
    /// Length of the entry in bytes.
    pub len: u32,
}

impl ValueHandle {
    /// Appends the encoding.
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        put_varint(buf, self.file);
        put_varint(buf, u64::from(self.epoch));
        put_varint(buf, self.offset);
        put_varint(buf, u64::from(self.len));
    }

    /// The encoding as a new vector.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(16);
        self.encode_to(&mut v);
        v
    }

    /// Decodes a handle that must fill `buf` exactly.
    pub fn decode(buf: &[u8]) -> Result<ValueHandle, DecodeError> {
        let mut d = Decoder::new(buf);
        let h = ValueHandle {
            file: d.varint("handle file")?,
            epoch: d.varint_u32("handle epoch")?,
            offset: d.varint("handle offset")?,
            len: d.varint_u32("handle length")?,
        };
        if !d.is_empty() {
            return Err(d.error("trailing bytes after value handle"));
        }
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let h = ValueHandle {
            file: 7,
            epoch: 2,
            offset: 1 << 33,
            len: 1100,
        };
        assert_eq!(ValueHandle::decode(&h.encode()), Ok(h));
        let mut long = h.encode();
        long.push(0);
        assert!(ValueHandle::decode(&long).is_err());
    }
}

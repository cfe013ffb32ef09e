//! The fixed header at the start of value files, drop files and manifests.
//! Specified in `docs/format/record.md`.
//!
//! ```text
//! header := magic: [u8; 8] | format_version: u32 LE | file_number: u64 LE | masked_crc32c: u32 LE
//! ```
//! The CRC covers the 20 bytes before it.

use super::coding::{DecodeError, Decoder, masked_crc};

/// Bytes of a file header.
pub const FILE_HEADER_LEN: usize = 24;

/// The format version written by this build.
pub const FORMAT_VERSION: u32 = 1;

/// Which kind of file a header opens.
///
/// DO NOT CHANGE THE MAGIC VALUES: they are embedded in files on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A value file (the value log).
    ValueLog,
    /// A drop file: the drop records of one value file.
    Drops,
    /// A manifest: the log of version edits.
    Manifest,
    /// An SVTable: a value file rewritten by value GC.
    SvTable,
}

impl FileKind {
    /// The magic bytes of this kind.
    pub fn magic(self) -> &'static [u8; 8] {
        match self {
            FileKind::ValueLog => b"twainVLG",
            FileKind::Drops => b"twainDRP",
            FileKind::Manifest => b"twainMAN",
            FileKind::SvTable => b"twainSVT",
        }
    }
}

/// Encodes the header of a file of `kind` numbered `number`.
pub fn encode_header(kind: FileKind, number: u64) -> [u8; FILE_HEADER_LEN] {
    let mut h = [0u8; FILE_HEADER_LEN];
    let mut v = Vec::with_capacity(FILE_HEADER_LEN);
    v.extend_from_slice(kind.magic());
    v.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    v.extend_from_slice(&number.to_le_bytes());
    let crc = masked_crc(&v);
    v.extend_from_slice(&crc.to_le_bytes());
    h.copy_from_slice(&v);
    h
}

/// Checks a header: magic of `kind`, a supported version and the checksum. Returns the
/// file number stored in it.
pub fn decode_header(kind: FileKind, buf: &[u8]) -> Result<u64, DecodeError> {
    let mut d = Decoder::new(buf);
    let magic: [u8; 8] = d.array("file magic")?;
    let version = d.u32("format version")?;
    let number = d.u64("file number")?;
    let crc = d.u32("header checksum")?;
    if &magic != kind.magic() {
        return Err(DecodeError::new(
            0,
            format!("bad magic for a {kind:?} file"),
        ));
    }
    if masked_crc(buf.get(..20).unwrap_or_default()) != crc {
        return Err(DecodeError::new(20, "file header checksum mismatch"));
    }
    if version != FORMAT_VERSION {
        return Err(DecodeError::new(
            8,
            format!("unsupported format version {version} (this build reads {FORMAT_VERSION})"),
        ));
    }
    Ok(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_checks_kind() {
        let h = encode_header(FileKind::Manifest, 42);
        assert_eq!(decode_header(FileKind::Manifest, &h), Ok(42));
        assert!(decode_header(FileKind::ValueLog, &h).is_err());
        let mut bad = h;
        bad[12] ^= 0x10;
        assert!(decode_header(FileKind::Manifest, &bad).is_err());
        assert!(decode_header(FileKind::Manifest, &h[..10]).is_err());
    }
}

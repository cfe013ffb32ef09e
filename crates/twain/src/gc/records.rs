//! Reading every separated record of a value file, log or SVTable, in one sequential pass.

use super::Throttle;
use crate::error::IoContext;
use crate::format::file_header::FILE_HEADER_LEN;
use crate::format::vlog::{LogEntryKind, decode_separated};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::vlog::{ValueFile, scan_value_file};
use crate::{Error, Result};

/// Bytes read per positional read of an SVTable's entries.
const CHUNK: u64 = 4 << 20;

/// One separated record of a value file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The user key.
    pub key: Vec<u8>,
    /// The sequence number.
    pub seq: SeqNo,
    /// The value.
    pub value: Vec<u8>,
    /// The entry's size in the file.
    pub len: u32,
}

/// Every separated record of `file` for which `keep(seq)` holds, with the number of bytes
/// read. Records of an SVTable come in key order; a log's in log order.
pub(crate) fn read_records(
    fs: &dyn Fs,
    file: &ValueFile,
    throttle: &mut Throttle,
    keep: impl Fn(SeqNo) -> bool,
) -> Result<(Vec<Record>, u64)> {
    let mut out = Vec::new();
    if file.epoch() == 0 {
        let mut read = 0u64;
        let path = file.path().to_path_buf();
        scan_value_file(fs, &path, file.number(), false, |at, len, reader| {
            read += len;
            throttle.spend(len);
            while let Some(e) = reader
                .next_entry()
                .map_err(|e| e.into_corruption(&path, at + 8))?
            {
                if e.kind == LogEntryKind::Separated && keep(e.seq) {
                    out.push(Record {
                        key: e.key.to_vec(),
                        seq: e.seq,
                        value: e.value.to_vec(),
                        len: e.len as u32,
                    });
                }
            }
            Ok(())
        })?;
        return Ok((out, read));
    }
    let path = file.path();
    let index = file.svtable()?;
    let end = index.footer().index_offset;
    let reader = file.reader()?;
    let mut chunk_start = FILE_HEADER_LEN as u64;
    let mut chunk: Vec<u8> = Vec::new();
    let mut read = 0u64;
    for (key, seq, offset, len) in index.entries(path)? {
        let entry_end = offset + u64::from(len);
        if offset < FILE_HEADER_LEN as u64 || entry_end > end {
            return Err(Error::corruption(
                path,
                offset,
                "SVTable entry outside the entry area",
            ));
        }
        if entry_end > chunk_start + chunk.len() as u64 || offset < chunk_start {
            chunk_start = offset;
            let n = (end - offset).min(CHUNK.max(u64::from(len)));
            chunk = reader.read_vec(offset, n as usize).ctx("read", path)?;
            read += n;
            throttle.spend(n);
        }
        if !keep(seq) {
            continue;
        }
        let at = (offset - chunk_start) as usize;
        let bytes = chunk
            .get(at..at + len as usize)
            .ok_or_else(|| Error::corruption(path, offset, "short read of an SVTable entry"))?;
        let range =
            decode_separated(bytes, &key, seq).map_err(|e| e.into_corruption(path, offset))?;
        out.push(Record {
            value: bytes.get(range).unwrap_or_default().to_vec(),
            key,
            seq,
            len,
        });
    }
    Ok((out, read))
}

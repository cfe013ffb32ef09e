//! Reading every separated record of a value file, log or SVTable, in one sequential pass,
//! past damage: what was damaged is reported in the [`Scan`], for [`judge`](super::judge).

use super::Throttle;
use super::damage::{Damage, MAX_DAMAGES};
use super::log_scan::scan_log;
use crate::error::IoContext;
use crate::format::file_header::FILE_HEADER_LEN;
use crate::format::vlog::decode_separated;
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::vlog::ValueFile;
use crate::{Error, Result};
use std::collections::HashSet;

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

/// What a read of a value file found.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// The intact records wanted. Records of an SVTable come in key order; a log's in log
    /// order.
    pub records: Vec<Record>,
    /// Bytes read.
    pub read: u64,
    /// Records accounted for: read intact, or (in an SVTable) dropped and left unread.
    pub intact: u64,
    /// The sequence numbers of those that are in the drop set.
    pub intact_dropped: HashSet<SeqNo>,
    /// Damaged places, in file order (the first [`MAX_DAMAGES`]).
    pub damage: Vec<Damage>,
}

impl Scan {
    fn account(&mut self, seq: SeqNo, dropped: &HashSet<SeqNo>) {
        self.intact += 1;
        if dropped.contains(&seq) {
            self.intact_dropped.insert(seq);
        }
    }
}

/// Every intact separated record of `file`, except those in `dropped` if `skip_dropped`.
/// Damage is reported in the result; only I/O errors fail (and a file that cannot be
/// opened at all).
pub(crate) fn read_records(
    fs: &dyn Fs,
    file: &ValueFile,
    throttle: &mut Throttle,
    dropped: &HashSet<SeqNo>,
    skip_dropped: bool,
) -> Result<Scan> {
    let mut scan = Scan::default();
    if file.epoch() == 0 {
        let mut damage = Vec::new();
        let read = scan_log(
            fs,
            file.path(),
            file.number(),
            throttle,
            &mut damage,
            |_, e| {
                scan.account(e.seq, dropped);
                if !(skip_dropped && dropped.contains(&e.seq)) {
                    scan.records.push(Record {
                        key: e.key.to_vec(),
                        seq: e.seq,
                        value: e.value.to_vec(),
                        len: e.len as u32,
                    });
                }
            },
        )?;
        scan.read = read;
        scan.damage = damage;
        return Ok(scan);
    }
    let path = file.path();
    // A damaged footer or index leaves nothing to find the entries by.
    let index = match file.svtable().and_then(|i| Ok((i, i.entries(path)?))) {
        Ok(i) => i,
        Err(Error::Corruption { offset, what, .. }) => {
            scan.damage.push(Damage {
                offset,
                key: None,
                what: format!("{what}; no entry of the SVTable can be found"),
            });
            return Ok(scan);
        }
        Err(e) => return Err(e),
    };
    let (index, entries) = index;
    let end = index.footer().index_offset;
    let reader = file.reader()?;
    let mut chunk_start = FILE_HEADER_LEN as u64;
    let mut chunk: Vec<u8> = Vec::new();
    for (key, seq, offset, len) in entries {
        if skip_dropped && dropped.contains(&seq) {
            scan.account(seq, dropped);
            continue;
        }
        let entry_end = offset + u64::from(len);
        let bytes = if offset < FILE_HEADER_LEN as u64 || entry_end > end {
            None
        } else {
            if entry_end > chunk_start + chunk.len() as u64 || offset < chunk_start {
                chunk_start = offset;
                let n = (end - offset).min(CHUNK.max(u64::from(len)));
                chunk = reader.read_vec(offset, n as usize).ctx("read", path)?;
                scan.read += n;
                throttle.spend(n);
            }
            let at = (offset - chunk_start) as usize;
            chunk.get(at..at + len as usize)
        };
        let decoded = match bytes {
            None => Err("SVTable entry outside the entry area".to_string()),
            Some(b) => decode_separated(b, &key, seq)
                .map(|range| b.get(range).unwrap_or_default().to_vec())
                .map_err(|e| e.what),
        };
        match decoded {
            Ok(value) => {
                scan.account(seq, dropped);
                scan.records.push(Record {
                    value,
                    key,
                    seq,
                    len,
                });
            }
            Err(what) if scan.damage.len() < MAX_DAMAGES => scan.damage.push(Damage {
                offset,
                key: Some(key),
                what,
            }),
            Err(_) => {}
        }
    }
    Ok(scan)
}

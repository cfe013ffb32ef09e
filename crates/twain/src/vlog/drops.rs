//! Writing and reading drop files (see `format::drops`).

use crate::error::IoContext;
use crate::format::drops::decode_block;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use crate::format::record::{Frame, decode_frame, next_good_frame};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::{Error, Result};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Collects the drop records of one flush or compaction; `DropIndex::persist` writes them.
#[derive(Debug, Default)]
pub struct DropWriter {
    drops: BTreeMap<u64, Vec<(SeqNo, u32)>>,
}

impl DropWriter {
    /// An empty set of drops.
    pub fn new() -> DropWriter {
        DropWriter::default()
    }

    /// Records that entry `seq` (of `len` bytes) of value file `file` is dropped.
    pub fn add(&mut self, file: u64, seq: SeqNo, len: u32) {
        self.drops.entry(file).or_default().push((seq, len));
    }

    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        self.drops.is_empty()
    }

    /// The drops per value file, sorted by sequence and without repeats.
    pub fn normalized(&mut self) -> Vec<(u64, Vec<(SeqNo, u32)>)> {
        for v in self.drops.values_mut() {
            v.sort_unstable();
            v.dedup_by_key(|e| e.0);
        }
        self.drops.iter().map(|(&n, v)| (n, v.clone())).collect()
    }
}

/// Reads the set of dropped sequence numbers of a value file, with their lengths.
/// A torn last block (a crash while appending) is ignored: the edit that would have
/// counted it was never logged. A missing drop file is an empty set.
pub fn read_drop_set(fs: &dyn Fs, path: &Path, number: u64) -> Result<BTreeMap<SeqNo, u32>> {
    let mut set = BTreeMap::new();
    if !fs.exists(path).ctx("stat", path)? {
        return Ok(set);
    }
    let file = fs.open_read(path).ctx("open", path)?;
    let len = file.len().ctx("stat", path)?;
    let bytes = file.read_vec(0, len as usize).ctx("read", path)?;
    match decode_header(FileKind::Drops, &bytes) {
        Ok(n) if n == number => {}
        Ok(n) => {
            return Err(Error::corruption(
                path,
                0,
                format!("drop file names value file {n}"),
            ));
        }
        Err(_) if bytes.len() < FILE_HEADER_LEN => return Ok(set),
        Err(e) => return Err(e.into_corruption(path, 0)),
    }
    let mut offset = FILE_HEADER_LEN;
    let mut seen = HashSet::new();
    while offset < bytes.len() {
        let rest = bytes.get(offset..).unwrap_or_default();
        match decode_frame(rest) {
            Frame::Good { payload, frame_len } => {
                for (seq, l) in
                    decode_block(payload).map_err(|e| e.into_corruption(path, offset as u64))?
                {
                    if seen.insert(seq) {
                        set.insert(seq, l);
                    }
                }
                offset += frame_len;
            }
            Frame::Truncated { .. } => break,
            Frame::Bad { what } => {
                // Each block is synced before the next is appended: damage with an intact
                // block after it is corruption; damage at the end is a torn append.
                if next_good_frame(&bytes, offset).is_none() {
                    break;
                }
                return Err(Error::corruption(path, offset as u64, what));
            }
        }
    }
    Ok(set)
}

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
    drops: BTreeMap<u64, Vec<Dropped>>,
    /// Value files whose drops are only right at this epoch (placement merged their
    /// values into the tree on the strength of it): see [`DropWriter::require_epoch`].
    required: BTreeMap<u64, u32>,
}

/// One dropped entry: the value record it pointed at and the handle it held.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dropped {
    /// The record's sequence number.
    pub seq: SeqNo,
    /// The epoch of the value file the dropped handle pointed into.
    pub epoch: u32,
    /// The length of the entry that handle pointed at.
    pub len: u32,
    /// The user key.
    pub key: Vec<u8>,
}

impl DropWriter {
    /// An empty set of drops.
    pub fn new() -> DropWriter {
        DropWriter::default()
    }

    /// Records that an entry holding a handle to record `seq` of value file `file` (made
    /// for epoch `epoch`, pointing at `len` bytes) was dropped.
    pub fn add(&mut self, file: u64, seq: SeqNo, epoch: u32, len: u32, key: &[u8]) {
        self.drops.entry(file).or_default().push(Dropped {
            seq,
            epoch,
            len,
            key: key.to_vec(),
        });
    }

    /// Adds every drop and required epoch of `other` (another part of the same
    /// compaction: its entries are disjoint from these).
    pub fn absorb(&mut self, other: DropWriter) {
        for (file, mut v) in other.drops {
            self.drops.entry(file).or_default().append(&mut v);
        }
        self.required.extend(other.required);
    }

    /// Keeps the drops of the value files `keep` says yes to, and forgets the others.
    pub fn retain_files(&mut self, mut keep: impl FnMut(u64) -> bool) {
        self.drops.retain(|&file, _| keep(file));
        self.required.retain(|&file, _| keep(file));
    }

    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        self.drops.is_empty()
    }

    /// Makes the drops valid only while value file `file` is at epoch `epoch`:
    /// `DropIndex::persist` writes nothing if value GC has rewritten it since. Compaction
    /// asks for this when it merged a value into the tree knowing that no other entry
    /// pointed at its record (a GC rewrite lets readers add such entries, lazy fix-ups).
    pub fn require_epoch(&mut self, file: u64, epoch: u32) {
        self.required.insert(file, epoch);
    }

    /// The files and epochs [`DropWriter::require_epoch`] asked for.
    pub fn required(&self) -> &BTreeMap<u64, u32> {
        &self.required
    }

    /// A copy of the drops per value file, sorted by sequence.
    pub fn sorted(&self) -> BTreeMap<u64, Vec<Dropped>> {
        let mut drops = self.drops.clone();
        for v in drops.values_mut() {
            v.sort_unstable();
        }
        drops
    }

    /// The drops per value file, sorted by sequence.
    pub fn take(&mut self) -> BTreeMap<u64, Vec<Dropped>> {
        let mut drops = std::mem::take(&mut self.drops);
        for v in drops.values_mut() {
            v.sort_unstable();
        }
        drops
    }
}

/// Reads the set of dropped sequence numbers of a value file, with their lengths.
/// A torn last block (a crash while appending) is ignored: the edit that would have
/// counted it was never logged. A missing drop file is an empty set.
pub fn read_drop_set(fs: &dyn Fs, path: &Path, number: u64) -> Result<BTreeMap<SeqNo, u32>> {
    read_drop_file(fs, path, number).map(|c| c.set)
}

/// A drop file's contents and how much of it is intact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DropFileContents {
    /// Dropped sequence numbers and their lengths.
    pub set: BTreeMap<SeqNo, u32>,
    /// Per intact block, in file order: where it ends and the sequence numbers it added
    /// to the set (with their lengths), so a caller can keep a prefix of the blocks.
    pub blocks: Vec<(u64, Vec<(SeqNo, u32)>)>,
    /// Bytes up to the end of the last intact block (0 if not even the header is intact).
    pub valid_len: u64,
    /// The file's length (0 if it does not exist).
    pub file_len: u64,
}

impl DropFileContents {
    /// Keeps only the leading blocks that hold exactly the `counted` drops the manifest
    /// counts, cutting `set` and `valid_len` to them; the blocks after those were appended
    /// by a flush or compaction whose edit never landed (flushes and compactions append
    /// their block and log their edit under the drop lock, so counted blocks come first).
    /// A file whose blocks hold fewer drops than counted, or whose counted drops end
    /// inside a block, is kept whole (manifests of older engines counted otherwise).
    pub fn keep_counted(&mut self, counted: u64) {
        if (self.set.len() as u64) <= counted {
            return;
        }
        let mut total = 0u64;
        let mut cut = (counted == 0).then_some(0);
        for (i, (_, fresh)) in self.blocks.iter().enumerate() {
            if cut.is_some() || total > counted {
                break;
            }
            total += fresh.len() as u64;
            if total == counted {
                cut = Some(i + 1);
            }
        }
        let Some(keep) = cut else {
            return;
        };
        let end = match keep.checked_sub(1) {
            None => FILE_HEADER_LEN as u64,
            Some(last) => self.blocks.get(last).map_or(self.valid_len, |b| b.0),
        };
        self.set = self.blocks[..keep]
            .iter()
            .flat_map(|(_, fresh)| fresh.iter().copied())
            .collect();
        self.valid_len = end;
    }
}

/// Reads a drop file, telling a torn tail (ignored, reported through `valid_len`) from
/// corruption (an error).
pub fn read_drop_file(fs: &dyn Fs, path: &Path, number: u64) -> Result<DropFileContents> {
    let mut out = DropFileContents::default();
    if !fs.exists(path).ctx("stat", path)? {
        return Ok(out);
    }
    let file = fs.open_read(path).ctx("open", path)?;
    let len = file.len().ctx("stat", path)?;
    out.file_len = len;
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
        // The header is written and synced with the first block: damage with nothing
        // intact after it is a file whose creation never completed.
        Err(_) if next_good_frame(&bytes, 0).is_none() => return Ok(out),
        Err(e) => return Err(e.into_corruption(path, 0)),
    }
    let mut offset = FILE_HEADER_LEN;
    out.valid_len = offset as u64;
    let mut seen = HashSet::new();
    while offset < bytes.len() {
        let rest = bytes.get(offset..).unwrap_or_default();
        match decode_frame(rest) {
            Frame::Good { payload, frame_len } => {
                let mut fresh = Vec::new();
                for (seq, l) in
                    decode_block(payload).map_err(|e| e.into_corruption(path, offset as u64))?
                {
                    if seen.insert(seq) {
                        out.set.insert(seq, l);
                        fresh.push((seq, l));
                    }
                }
                offset += frame_len;
                out.valid_len = offset as u64;
                out.blocks.push((out.valid_len, fresh));
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
    Ok(out)
}

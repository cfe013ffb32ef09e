//! Writing and reading drop files (see `format::drops`).

use crate::error::IoContext;
use crate::format::drops::{decode_block, encode_block};
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header, encode_header};
use crate::format::record::{Frame, decode_frame, next_good_frame, put_frame};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::{Error, Result};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Persists the drop records of one flush or compaction: one block per value file,
/// appended to that file's drop file and synced. Creates missing drop files and syncs
/// the directory once. Must complete before the edit that counts the drops is logged.
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

    /// Per value file: (count, bytes) of the drops, with duplicates within this set
    /// removed.
    pub fn totals(&mut self) -> Vec<(u64, u64, u64)> {
        self.normalize();
        self.drops
            .iter()
            .map(|(&f, v)| {
                (
                    f,
                    v.len() as u64,
                    v.iter().map(|&(_, l)| u64::from(l)).sum(),
                )
            })
            .collect()
    }

    fn normalize(&mut self) {
        for v in self.drops.values_mut() {
            v.sort_unstable();
            v.dedup_by_key(|e| e.0);
        }
    }

    /// Appends and syncs every block; returns the bytes written.
    /// `path_of(number)` gives the drop file path of value file `number`.
    pub fn persist(
        &mut self,
        fs: &dyn Fs,
        dir: &Path,
        path_of: impl Fn(u64) -> std::path::PathBuf,
    ) -> Result<u64> {
        self.normalize();
        let mut written = 0u64;
        let mut created = false;
        for (&number, drops) in &self.drops {
            let path = path_of(number);
            let mut file = if fs.exists(&path).ctx("stat", &path)? {
                fs.open_append(&path).ctx("open", &path)?
            } else {
                created = true;
                let mut f = fs.create(&path).ctx("create", &path)?;
                f.append(&encode_header(FileKind::Drops, number))
                    .ctx("append", &path)?;
                written += FILE_HEADER_LEN as u64;
                f
            };
            let mut frame = Vec::new();
            put_frame(&mut frame, &encode_block(drops));
            file.append(&frame).ctx("append", &path)?;
            file.sync_data().ctx("sync", &path)?;
            written += frame.len() as u64;
        }
        if created {
            // IMPORTANT: new drop files must be durable before the edit that counts them.
            fs.sync_dir(dir).ctx("sync directory", dir)?;
        }
        Ok(written)
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

//! The drop sets of the live value files, in memory.
//!
//! A drop file is the source of truth for which records of a value file are dead; this
//! index mirrors the set of the file's current epoch so that a drop is *counted* once even
//! when it is emitted twice — by a compaction redone after a crash, or by a lazy handle
//! fix-up and its original (two entries with the same key and sequence) both dropped later.
//! An over-count could make a file look dead while it still holds a live value.
//!
//! The index's mutex is the *drop lock*: appending drop records and a value GC install that
//! carries drops over to a new epoch are serialized through it.

use super::ValueFile;
use super::drops::{DropWriter, read_drop_file};
use crate::Result;
use crate::error::IoContext;
use crate::format::drops::encode_block;
use crate::format::file_header::{FileKind, encode_header};
use crate::format::manifest::DropDelta;
use crate::format::names::drop_file_path;
use crate::format::record::put_frame;
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::seq_set::SeqSet;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

/// The drops of one value file's current epoch.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileDrops {
    /// The epoch the set belongs to.
    pub epoch: u32,
    /// Dropped sequence numbers.
    pub seqs: SeqSet,
    /// Bytes of the dropped entries.
    pub bytes: u64,
}

/// Drop sets by value file number. Thread-safe.
#[derive(Debug, Default)]
pub struct DropIndex {
    files: Mutex<HashMap<u64, FileDrops>>,
}

impl DropIndex {
    /// Loads the drop sets of `files` (number, current epoch, the drops the manifest counts
    /// for that epoch) from their drop files. With `repair`, a torn tail is cut off (and a
    /// file without an intact header removed); without (a read-only open), it is only
    /// ignored.
    ///
    /// Blocks after those the manifest counts ([`DropFileContents::keep_counted`]) go too:
    /// the work that appended them is redone and drops again, and placement's drops (a
    /// value merged into the tree by a compaction that did not install) name records the
    /// tables still point at.
    pub fn load(
        fs: &dyn Fs,
        dir: &Path,
        files: impl IntoIterator<Item = (u64, u32, u64)>,
        repair: bool,
    ) -> Result<DropIndex> {
        let mut map = HashMap::new();
        for (number, epoch, counted) in files {
            let path = drop_file_path(dir, number, epoch);
            let mut contents = read_drop_file(fs, &path, number)?;
            contents.keep_counted(counted);
            if repair && contents.valid_len == 0 {
                // Not even the header survived (or the file is empty): drops are appended
                // only after a header, so start the file afresh when it is next needed.
                if fs.exists(&path).ctx("stat", &path)? {
                    fs.remove_file(&path).ctx("remove", &path)?;
                }
            } else if repair && contents.valid_len < contents.file_len {
                // IMPORTANT: cut a torn tail (or blocks no edit counts) off before anything
                // is appended after it, or the next open would find damage followed by an
                // intact block (or count those blocks after all).
                {
                    fs.truncate(&path, contents.valid_len)
                        .ctx("truncate", &path)?;
                    fs.open_append(&path)
                        .and_then(|mut f| f.sync_data())
                        .ctx("sync", &path)?;
                }
            }
            let set = contents.set;
            let bytes = set.values().map(|&l| u64::from(l)).sum();
            map.insert(
                number,
                FileDrops {
                    epoch,
                    seqs: set.into_keys().collect(),
                    bytes,
                },
            );
        }
        Ok(DropIndex {
            files: Mutex::new(map),
        })
    }

    /// Takes the drop lock.
    pub fn lock(&self) -> MutexGuard<'_, HashMap<u64, FileDrops>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends the drops in `writer` that are new for the records of each value file's
    /// current epoch, one synced block per value file, to the drop file of that epoch;
    /// records them in the sets; and returns the count deltas for the manifest edit, tagged
    /// with those epochs, plus the bytes written. `current(number)` gives a live value
    /// file's current epoch; drops for files that are not live are ignored.
    ///
    /// A drop whose handle names an older epoch is for a record that value GC may have
    /// left out of the current epoch already (an earlier copy of the entry — the original
    /// or a lazy fix-up — was dropped before): it counts only if the current epoch still
    /// holds the record, with that entry's length. Must complete before the edit that
    /// counts the drops is logged.
    ///
    /// `None`, with nothing written, if a file the writer requires at an epoch
    /// ([`DropWriter::require_epoch`]) is no longer at it: the caller must discard its
    /// work.
    pub fn persist(
        &self,
        fs: &dyn Fs,
        dir: &Path,
        writer: &mut DropWriter,
        current: impl Fn(u64) -> Option<Arc<ValueFile>>,
    ) -> Result<Option<(Vec<DropDelta>, u64)>> {
        Self::persist_locked(&mut self.lock(), fs, dir, writer, current)
    }

    /// [`DropIndex::persist`] with the drop lock already held: a flush or compaction keeps
    /// holding it until its edit is logged, so that the blocks of a drop file are counted
    /// in the order they were appended (see [`DropIndex::load`]).
    pub fn persist_locked(
        files: &mut HashMap<u64, FileDrops>,
        fs: &dyn Fs,
        dir: &Path,
        writer: &mut DropWriter,
        current: impl Fn(u64) -> Option<Arc<ValueFile>>,
    ) -> Result<Option<(Vec<DropDelta>, u64)>> {
        // Under the drop lock, which a GC install holds: no new epoch can appear until the
        // drops are written.
        let moved = writer
            .required()
            .iter()
            .any(|(&n, &epoch)| current(n).is_none_or(|f| f.epoch() != epoch));
        if moved {
            return Ok(None);
        }
        let mut deltas = Vec::new();
        let mut written = 0u64;
        let mut created = false;
        for (number, drops) in writer.take() {
            let Some(file) = current(number) else {
                continue;
            };
            let epoch = file.epoch();
            let entry = files.entry(number).or_insert_with(|| FileDrops {
                epoch,
                ..FileDrops::default()
            });
            if entry.epoch != epoch {
                *entry = FileDrops {
                    epoch,
                    ..FileDrops::default()
                };
            }
            let mut fresh: Vec<(SeqNo, u32)> = Vec::new();
            for d in drops {
                if entry.seqs.contains(&d.seq) || fresh.last().is_some_and(|&(s, _)| s == d.seq) {
                    continue;
                }
                let len = match d.epoch.cmp(&epoch) {
                    std::cmp::Ordering::Equal => d.len,
                    std::cmp::Ordering::Less => match file.find(&d.key, d.seq)? {
                        Some(h) => h.len,
                        None => continue,
                    },
                    std::cmp::Ordering::Greater => continue,
                };
                fresh.push((d.seq, len));
            }
            if fresh.is_empty() {
                continue;
            }
            let path = drop_file_path(dir, number, epoch);
            let mut out = if fs.exists(&path).ctx("stat", &path)? {
                fs.open_append(&path).ctx("open", &path)?
            } else {
                created = true;
                let mut f = fs.create(&path).ctx("create", &path)?;
                f.append(&encode_header(FileKind::Drops, number))
                    .ctx("append", &path)?;
                written += crate::format::file_header::FILE_HEADER_LEN as u64;
                f
            };
            let mut frame = Vec::new();
            put_frame(&mut frame, &encode_block(&fresh));
            out.append(&frame).ctx("append", &path)?;
            out.sync_data().ctx("sync", &path)?;
            written += frame.len() as u64;
            let bytes: u64 = fresh.iter().map(|&(_, l)| u64::from(l)).sum();
            entry.seqs.extend(fresh.iter().map(|&(s, _)| s));
            entry.bytes += bytes;
            deltas.push(DropDelta {
                number,
                epoch,
                count: fresh.len() as u64,
                bytes,
            });
        }
        if created {
            // IMPORTANT: new drop files must be durable before the edit that counts them.
            fs.sync_dir(dir).ctx("sync directory", dir)?;
        }
        Ok(Some((deltas, written)))
    }

    /// Writes a new drop file for epoch `epoch` of value file `number` holding `drops`
    /// (possibly none), synced and with its directory entry synced. Used by value GC
    /// before it installs the new epoch. REQUIRES: the caller holds the drop lock.
    pub fn write_epoch_file(
        fs: &dyn Fs,
        dir: &Path,
        number: u64,
        epoch: u32,
        drops: &[(SeqNo, u32)],
    ) -> Result<u64> {
        let path = drop_file_path(dir, number, epoch);
        let mut bytes = encode_header(FileKind::Drops, number).to_vec();
        if !drops.is_empty() {
            put_frame(&mut bytes, &encode_block(drops));
        }
        let mut f = fs.create(&path).ctx("create", &path)?;
        f.append(&bytes).ctx("append", &path)?;
        f.sync_data().ctx("sync", &path)?;
        fs.sync_dir(dir).ctx("sync directory", dir)?;
        Ok(bytes.len() as u64)
    }

    /// Whether record `seq` of value file `number` is in the drop set of epoch `epoch`.
    pub fn is_dropped(&self, number: u64, epoch: u32, seq: SeqNo) -> bool {
        self.lock()
            .get(&number)
            .is_some_and(|d| d.epoch == epoch && d.seqs.contains(&seq))
    }

    /// [`DropIndex::is_dropped`] if the drop lock is free now, `None` if it is held (a
    /// flush, compaction or GC install holds it across syncs: a foreground caller that
    /// may skip its work asks this way instead of waiting for the disk).
    pub fn try_is_dropped(&self, number: u64, epoch: u32, seq: SeqNo) -> Option<bool> {
        let files = match self.files.try_lock() {
            Ok(files) => files,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(
            files
                .get(&number)
                .is_some_and(|d| d.epoch == epoch && d.seqs.contains(&seq)),
        )
    }

    /// Forgets files no longer live.
    pub fn retain(&self, live: impl Fn(u64) -> bool) {
        self.lock().retain(|&n, _| live(n));
    }
}

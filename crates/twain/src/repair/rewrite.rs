//! Rewriting the recovered SSTables into one sorted run.
//!
//! Tables do not record their level, and no order of whole tables is safe for L0: a read
//! stops at the first table holding its key, and neither file numbers (a compaction output
//! is numbered after newer flushes) nor sequence ranges (a deep table can span a key whose
//! newer version sits in a shallower one) say which table holds a key's newest version.
//! Merging every entry into non-overlapping tables of one level removes the question: a
//! key's versions end up side by side, newest first.
//!
//! Every version is kept (no snapshot survives a repair, but compaction drops shadowed
//! versions later through the usual path, with drop records), except shadowed versions whose
//! records the drop files already count dead (a compaction's inputs left on disk by a crash). Where two tables hold the
//! same (key, sequence) — a value GC fix-up and its original — one whose value reads back is
//! kept. A version whose value cannot be read (its value file is missing or damaged) is
//! left out if a newer version shadows it, and becomes a tombstone with its sequence
//! number if it was the key's newest: the key then reads as deleted rather than as an
//! older value it no longer had.

use super::report::MAX_LISTED_KEYS;
use crate::Result;
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::manifest::TableRecord;
use crate::format::names::{FileType, file_path};
use crate::fs::Fs;
use crate::iter::{InternalIterator, MergingIterator};
use crate::key::{EntryKind, ParsedKey, SeqNo, internal_key};
use crate::options::Options;
use crate::seq_set::SeqSet;
use crate::table::{Table, TableBuilder, TableOptions};
use crate::vlog::ValueFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the rewrite produced.
#[derive(Debug, Default)]
pub(super) struct Rewritten {
    /// The new tables, in key order, all at the deepest level.
    pub records: Vec<TableRecord>,
    /// Their paths.
    pub paths: Vec<PathBuf>,
    /// Entries written.
    pub entries: u64,
    /// Smallest and largest sequence written.
    pub seqs: Option<(SeqNo, SeqNo)>,
    /// Newest versions turned into tombstones.
    pub lost_entries: u64,
    /// The first of their keys.
    pub lost_keys: Vec<Vec<u8>>,
    /// Shadowed versions left out.
    pub shadowed_dropped: u64,
}

/// The recovered value files, by number, at the epoch repair keeps.
pub(super) type ValueFiles = HashMap<u64, Arc<ValueFile>>;

/// The dropped sequence numbers of each recovered value file's kept epoch.
pub(super) type DropSets = HashMap<u64, SeqSet>;

/// Merges `tables` into new tables numbered from `*next_number` on (advanced past the
/// numbers used), synced with their directory.
pub(super) fn rewrite_tables(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    opts: &Options,
    tables: &[Arc<Table>],
    (values, dropped): (&ValueFiles, &DropSets),
    next_number: &mut u64,
) -> Result<Rewritten> {
    let level = opts.num_levels.saturating_sub(1);
    let table_opts = TableOptions {
        block_size: opts.block_size,
        bloom_bits_per_key: opts.bloom_bits_per_key,
        ..TableOptions::default()
    };
    let mut out = Output {
        fs: fs.as_ref(),
        dir,
        level,
        table_opts,
        target: opts.target_file_size,
        next_number,
        builder: None,
        done: Rewritten::default(),
    };
    // Newest file first: on equal internal keys the merge yields the earlier child first.
    let mut sorted: Vec<&Arc<Table>> = tables.iter().collect();
    sorted.sort_by_key(|t| std::cmp::Reverse(t.number()));
    let children: Vec<Box<dyn InternalIterator>> = sorted
        .into_iter()
        .map(|t| Box::new(t.iter(false)) as Box<dyn InternalIterator>)
        .collect();
    let mut it = MergingIterator::new(children);
    it.seek_to_first()?;

    let mut key: Vec<u8> = Vec::new();
    let mut started = false;
    // Whether the current key's newest version has been decided (written or tombstoned).
    let mut newest_done = false;
    // The sequence of the current key's last decided version: its duplicates are skipped.
    let mut decided_seq: Option<SeqNo> = None;
    // An unreadable version waiting for a readable duplicate: (seq, was it the newest).
    let mut pending: Option<(SeqNo, bool)> = None;
    while it.valid() {
        let p = ParsedKey::parse(it.key());
        let (seq, new_key) = (p.seq, !started || p.user_key != key.as_slice());
        if new_key {
            if let Some((s, newest)) = pending.take() {
                out.settle_unreadable(&key, s, newest)?;
            }
            out.cut_if_full()?;
            key.clear();
            key.extend_from_slice(p.user_key);
            started = true;
            newest_done = false;
            decided_seq = None;
        }
        // A shadowed version whose record its value file's drop set already counts dead:
        // value GC will not keep its record, so no table may keep its handle.
        if decided_seq == Some(seq) || (newest_done && counted_dead(dropped, it.key(), it.value()))
        {
            it.next()?;
            continue;
        }
        let readable = readable(values, it.key(), it.value())?;
        match pending {
            Some((s, _)) if s == seq => {
                if readable {
                    pending = None;
                    out.add(it.key(), it.value(), seq)?;
                    newest_done = true;
                    decided_seq = Some(seq);
                }
            }
            _ => {
                if let Some((s, newest)) = pending.take() {
                    out.settle_unreadable(&key, s, newest)?;
                    newest_done = true;
                }
                if readable {
                    out.add(it.key(), it.value(), seq)?;
                    newest_done = true;
                    decided_seq = Some(seq);
                } else {
                    pending = Some((seq, !newest_done));
                }
            }
        }
        it.next()?;
    }
    if let Some((s, newest)) = pending.take() {
        out.settle_unreadable(&key, s, newest)?;
    }
    out.finish_table()?;
    if !out.done.records.is_empty() {
        // IMPORTANT: the new tables' directory entries are durable before a manifest
        // names them.
        fs.sync_dir(dir).ctx("sync directory", dir)?;
    }
    Ok(out.done)
}

/// Whether the entry holds a handle to a record its value file's drop set names.
fn counted_dead(dropped: &DropSets, ikey: &[u8], value: &[u8]) -> bool {
    let p = ParsedKey::parse(ikey);
    p.entry_kind() == Some(EntryKind::Handle)
        && crate::key::split_expiry(p.kind, value)
            .ok()
            .and_then(|(_, encoded)| ValueHandle::decode(encoded).ok())
            .is_some_and(|h| dropped.get(&h.file).is_some_and(|s| s.contains(&p.seq)))
}

/// Whether the entry's value can be read: always for tombstones and inline values; for a
/// handle, when its value file is recovered and the entry reads back with its checksum,
/// key and sequence (through the SVTable's index if GC rewrote the file since).
fn readable(values: &ValueFiles, ikey: &[u8], value: &[u8]) -> Result<bool> {
    let p = ParsedKey::parse(ikey);
    let Ok((_, value)) = crate::key::split_expiry(p.kind, value) else {
        return Ok(false);
    };
    match p.entry_kind() {
        Some(EntryKind::Delete | EntryKind::Inline) => return Ok(true),
        Some(EntryKind::Handle) => {}
        None => return Ok(false),
    }
    let Ok(h) = ValueHandle::decode(value) else {
        return Ok(false);
    };
    let Some(file) = values.get(&h.file) else {
        return Ok(false);
    };
    let found = if file.epoch() == h.epoch {
        Some(h)
    } else if file.epoch() > h.epoch {
        match file.find(p.user_key, p.seq) {
            Ok(found) => found,
            Err(e) if e.is_corruption() => None,
            Err(e) => return Err(e),
        }
    } else {
        None
    };
    let Some(h) = found else { return Ok(false) };
    match file.read_value(&h, p.user_key, p.seq) {
        Ok(_) => Ok(true),
        Err(e) if e.is_corruption() => Ok(false),
        Err(e) => Err(e),
    }
}

/// The table being written and everything written so far.
struct Output<'a> {
    fs: &'a dyn Fs,
    dir: &'a Path,
    level: usize,
    table_opts: TableOptions,
    target: u64,
    next_number: &'a mut u64,
    builder: Option<(u64, PathBuf, TableBuilder)>,
    done: Rewritten,
}

impl Output<'_> {
    fn add(&mut self, ikey: &[u8], value: &[u8], seq: SeqNo) -> Result<()> {
        let (_, _, b) = match self.builder.as_mut() {
            Some(b) => b,
            None => {
                let number = *self.next_number;
                *self.next_number += 1;
                let path = file_path(self.dir, FileType::Table, number);
                let file = self.fs.create(&path).ctx("create", &path)?;
                let b = TableBuilder::new(file, path.clone(), &self.table_opts);
                self.builder.insert((number, path, b))
            }
        };
        b.add(ikey, value)?;
        self.done.entries += 1;
        self.done.seqs = Some(match self.done.seqs {
            Some((lo, hi)) => (lo.min(seq), hi.max(seq)),
            None => (seq, seq),
        });
        Ok(())
    }

    /// Decides an unreadable version of `key`: a tombstone if it was the newest, else
    /// nothing.
    fn settle_unreadable(&mut self, key: &[u8], seq: SeqNo, newest: bool) -> Result<()> {
        if !newest {
            self.done.shadowed_dropped += 1;
            return Ok(());
        }
        self.done.lost_entries += 1;
        if self.done.lost_keys.len() < MAX_LISTED_KEYS {
            self.done.lost_keys.push(key.to_vec());
        }
        self.add(&internal_key(key, seq, EntryKind::Delete as u8), &[], seq)
    }

    /// Closes the current table if it reached the target size. Called only between user
    /// keys, so that a key's versions never span two tables of the level.
    fn cut_if_full(&mut self) -> Result<()> {
        if self
            .builder
            .as_ref()
            .is_some_and(|(_, _, b)| b.estimated_size() >= self.target)
        {
            self.finish_table()?;
        }
        Ok(())
    }

    fn finish_table(&mut self) -> Result<()> {
        let Some((number, path, b)) = self.builder.take() else {
            return Ok(());
        };
        self.done
            .records
            .push(crate::db::finish_table(b, number, self.level)?);
        self.done.paths.push(path);
        Ok(())
    }
}

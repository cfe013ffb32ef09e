//! Checking what a compaction worker returned for a part before the host installs any of
//! it (Co-KV offload, `compaction::remote`). A worker is another process, maybe on
//! another machine: its outcome is taken as a claim about files, and every claim is read
//! back from the files themselves.
//!
//! An outcome passes only if
//! - every output table has a number the host reserved for the part (each once), sits in
//!   the job's output level, opens, and reads back whole with every block checksum right;
//! - its entries are well-formed internal keys in strictly ascending order, all inside the
//!   part's key range, matching the record's smallest and largest keys and sequence range,
//!   and as many as its properties say; tables do not overlap and come in key order;
//! - every handle in them names a value file of the job (or the part's placed file);
//! - every drop names a value file of the job at an epoch no newer than the job's, with a
//!   key inside the range, and every required epoch is the job's;
//! - a placed value file has a reserved number, epoch 1, the size it claims, and every
//!   entry reads back with its checksum, key and sequence;
//! - the counts add up: the tables' bytes are the figure claimed, and the entries kept
//!   plus the handles dropped are no more than the entries the inputs hold.

use super::job::{PartJob, PartOutcome};
use crate::cache::BlockCache;
use crate::format::handle::ValueHandle;
use crate::format::names::{FileType, file_path, value_file_path};
use crate::fs::Fs;
use crate::iter::InternalIterator;
use crate::key::{EntryKind, ParsedKey, TRAILER_LEN, compare_internal};
use crate::version::TableFile;
use crate::vlog::ValueFile;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

/// Block cache bytes for the check: each block is read once.
const CACHE_BYTES: u64 = 1 << 20;

/// What was read back to check an outcome.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// Entries in the output tables.
    pub entries: u64,
    /// Bytes of the output tables and the placed file.
    pub bytes: u64,
}

/// Checks `outcome`, which a worker returned for `job`, against the files in `dir`.
/// `input_entries` is how many entries the job's input tables hold (their properties, as
/// the host knows them). Returns what it read, or what is wrong, in words.
pub fn validate(
    job: &PartJob,
    outcome: &PartOutcome,
    fs: &Arc<dyn Fs>,
    dir: &Path,
    input_entries: u64,
) -> Result<Checked, String> {
    let mut numbers = HashSet::new();
    let mut reserved = |n: u64, what: &str| {
        if !job.numbers.contains(&n) {
            return Err(format!(
                "{what} {n} is not among the numbers reserved for the part ({:?})",
                job.numbers
            ));
        }
        if !numbers.insert(n) {
            return Err(format!("file number {n} is returned twice"));
        }
        Ok(())
    };
    let mut checked = Checked::default();
    let mut kept = 0u64;
    let cache = Arc::new(BlockCache::new(CACHE_BYTES));
    let mut previous_largest: Option<Vec<u8>> = None;
    for record in &outcome.tables {
        reserved(record.number, "output table")?;
        if record.level != job.output_level {
            return Err(format!(
                "output table {} is in L{}, the part writes L{}",
                record.number, record.level, job.output_level
            ));
        }
        if let Some(prev) = &previous_largest
            && ParsedKey::parse(prev).user_key >= ParsedKey::parse(&record.smallest).user_key
        {
            return Err(format!(
                "output table {} overlaps or precedes the one before it",
                record.number
            ));
        }
        let n = check_table(job, outcome, fs, dir, record, &cache)?;
        kept += n;
        checked.entries += n;
        checked.bytes += record.file_size;
        previous_largest = Some(record.largest.clone());
    }
    let table_bytes: u64 = outcome.tables.iter().map(|t| t.file_size).sum();
    if table_bytes != outcome.figures.table_bytes_written {
        return Err(format!(
            "the tables hold {table_bytes} bytes, the figures claim {}",
            outcome.figures.table_bytes_written
        ));
    }
    let mut dropped = 0u64;
    for (file, list) in outcome.drops.sorted() {
        let Some(&(epoch, _)) = job.value_files.get(&file) else {
            return Err(format!(
                "a drop names value file {file}, which the job has not"
            ));
        };
        for d in &list {
            if d.epoch > epoch {
                return Err(format!(
                    "a drop names epoch {} of value file {file}, newer than the job's {epoch}",
                    d.epoch
                ));
            }
            if !job.range.contains(&d.key) {
                return Err(format!(
                    "a drop of value file {file} names a key outside the part"
                ));
            }
        }
        dropped += list.len() as u64;
    }
    for (&file, &epoch) in outcome.drops.required() {
        if job.value_files.get(&file).map(|&(e, _)| e) != Some(epoch) {
            return Err(format!(
                "the outcome requires epoch {epoch} of value file {file}, not the job's"
            ));
        }
    }
    if kept + dropped > input_entries {
        return Err(format!(
            "{kept} entries kept and {dropped} handles dropped, but the inputs hold {input_entries} entries"
        ));
    }
    if let Some(placed) = &outcome.placed {
        reserved(placed.number, "placed value file")?;
        checked.bytes += check_placed(fs, dir, placed)?;
    }
    Ok(checked)
}

/// Reads output table `record` back whole; returns its entry count.
fn check_table(
    job: &PartJob,
    outcome: &PartOutcome,
    fs: &Arc<dyn Fs>,
    dir: &Path,
    record: &crate::format::manifest::TableRecord,
    cache: &Arc<BlockCache>,
) -> Result<u64, String> {
    let name = file_path(dir, FileType::Table, record.number);
    let table = TableFile::open(fs, dir, record.clone(), cache)
        .map_err(|e| format!("output table {}: {e}", name.display()))?;
    let mut it = table.table.iter(false);
    let read = |e: crate::Error| format!("output table {}: {e}", name.display());
    it.seek_to_first().map_err(read)?;
    let mut count = 0u64;
    let mut last: Option<Vec<u8>> = None;
    let (mut min_seq, mut max_seq) = (u64::MAX, 0u64);
    let placed = outcome.placed.as_ref().map(|p| p.number);
    while it.valid() {
        let key = it.key();
        let p = ParsedKey::parse(key);
        if key.len() < TRAILER_LEN || p.entry_kind().is_none() {
            return Err(format!(
                "output table {} holds a malformed key",
                record.number
            ));
        }
        if !job.range.contains(p.user_key) {
            return Err(format!(
                "output table {} holds a key outside the part's range",
                record.number
            ));
        }
        match &last {
            None if key != record.smallest.as_slice() => {
                return Err(format!(
                    "output table {} does not start at its recorded smallest key",
                    record.number
                ));
            }
            Some(prev) if compare_internal(prev, key) != Ordering::Less => {
                return Err(format!(
                    "output table {} is not in key order",
                    record.number
                ));
            }
            _ => {}
        }
        if p.entry_kind() == Some(EntryKind::Handle) {
            let h = ValueHandle::decode(it.value()).map_err(|e| {
                format!(
                    "output table {} holds a bad handle: {}",
                    record.number, e.what
                )
            })?;
            if !job.value_files.contains_key(&h.file) && Some(h.file) != placed {
                return Err(format!(
                    "output table {} points into value file {}, which the part cannot name",
                    record.number, h.file
                ));
            }
        }
        min_seq = min_seq.min(p.seq);
        max_seq = max_seq.max(p.seq);
        count += 1;
        last = Some(key.to_vec());
        it.next().map_err(read)?;
    }
    if last.as_deref() != Some(record.largest.as_slice()) {
        return Err(format!(
            "output table {} does not end at its recorded largest key",
            record.number
        ));
    }
    if (min_seq, max_seq) != (record.smallest_seq, record.largest_seq) {
        return Err(format!(
            "output table {} holds sequences {min_seq}..={max_seq}, its record says {}..={}",
            record.number, record.smallest_seq, record.largest_seq
        ));
    }
    if count != table.table.properties().num_entries {
        return Err(format!(
            "output table {} holds {count} entries, its properties say {}",
            record.number,
            table.table.properties().num_entries
        ));
    }
    Ok(count)
}

/// Reads a placed value file back whole; returns its size.
fn check_placed(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    placed: &crate::format::manifest::ValueFileRecord,
) -> Result<u64, String> {
    let path = value_file_path(dir, placed.number, 1);
    let what = |e: crate::Error| format!("placed value file {}: {e}", path.display());
    if placed.epoch != 1 {
        return Err(format!(
            "placed value file {} has epoch {}",
            placed.number, placed.epoch
        ));
    }
    let size = fs
        .file_size(&path)
        .map_err(|e| format!("placed value file {}: {e}", path.display()))?;
    if size != placed.total_bytes {
        return Err(format!(
            "placed value file {} has {size} bytes, the outcome claims {}",
            placed.number, placed.total_bytes
        ));
    }
    let file = ValueFile::with_epoch(Arc::clone(fs), dir, placed.number, 1);
    let entries = file.svtable().map_err(what)?.entries(&path).map_err(what)?;
    if entries.len() as u64 != placed.separated_count {
        return Err(format!(
            "placed value file {} holds {} entries, the outcome claims {}",
            placed.number,
            entries.len(),
            placed.separated_count
        ));
    }
    for (key, seq, offset, len) in entries {
        let handle = ValueHandle {
            file: placed.number,
            epoch: 1,
            offset,
            len,
        };
        file.read_value(&handle, &key, seq).map_err(what)?;
    }
    Ok(size)
}

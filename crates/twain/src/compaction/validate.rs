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
            let (_, encoded) = crate::key::split_expiry(p.kind, it.value()).map_err(|_| {
                format!(
                    "output table {} holds an entry too short for its expiry time",
                    record.number
                )
            })?;
            let h = ValueHandle::decode(encoded).map_err(|e| {
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

/// Checks `outcome` entry by entry against the merge the host would have made
/// (`compaction_offload_verify = full`): the job's inputs in its range go through the same
/// drop filter, every entry kept must be the next output entry (same user key and
/// sequence; the same kind, or a value merged into the tree or moved out of it; an inline
/// value unchanged), no output entry may be left over, and the drop records must be
/// exactly those of the handles dropped or merged into the tree. It reads the inputs but
/// writes nothing: what it costs the host is the merge's reading, not its writing.
pub fn verify_merge(
    job: &PartJob,
    outcome: &PartOutcome,
    env: &dyn super::job::PartEnv,
) -> Result<(), String> {
    use super::filter::{Decision, DropFilter};
    use crate::key::{LOOKUP_KIND, MAX_SEQNO, internal_key};
    let err = |e: crate::Error| format!("reading the part's inputs: {e}");
    let mut input = super::part::input_iterator(job, env).map_err(err)?;
    match &job.range.start {
        Some(start) => input.seek(&internal_key(start, MAX_SEQNO, LOOKUP_KIND)),
        None => input.seek_to_first(),
    }
    .map_err(err)?;
    let cache = Arc::new(BlockCache::new(CACHE_BYTES));
    let mut outputs = OutputEntries::new(outcome, env, &cache);
    let mut filter = DropFilter::new(job.snapshots.clone()).expiring_at(job.now);
    let mut expected: Vec<(u64, u64)> = Vec::new();
    let handle_of = |kind: u8, value: &[u8]| {
        let (_, encoded) = crate::key::split_expiry(kind, value)
            .map_err(|_| "an input entry too short for its expiry time".to_string())?;
        ValueHandle::decode(encoded).map_err(|e| format!("an input handle: {}", e.what))
    };
    while input.valid() {
        let key = input.key();
        let p = ParsedKey::parse(key);
        if job.range.is_past(p.user_key) {
            break;
        }
        let kind = p.entry_kind();
        match filter.decide(key, input.value(), |uk| !job.deeper_may_hold(uk)) {
            Decision::Keep => {
                let Some((okey, ovalue)) = outputs.next()? else {
                    return Err("the outputs end before the merge does: entries are missing".into());
                };
                let o = ParsedKey::parse(&okey);
                if o.user_key != p.user_key || o.seq != p.seq {
                    return Err(format!(
                        "output entry (sequence {}) is not the next entry the merge keeps (sequence {})",
                        o.seq, p.seq
                    ));
                }
                if o.expires() != p.expires()
                    || (p.expires() && ovalue.get(..8) != input.value().get(..8))
                {
                    return Err(format!("an expiry time changed (sequence {})", p.seq));
                }
                match (kind, o.entry_kind()) {
                    (a, b) if a == b => {
                        if a == Some(EntryKind::Inline) && ovalue != input.value() {
                            return Err(format!("an inline value changed (sequence {})", p.seq));
                        }
                    }
                    (Some(EntryKind::Handle), Some(EntryKind::Inline)) => {
                        // Merged into the tree: its record is dropped.
                        expected.push((handle_of(p.kind, input.value())?.file, p.seq));
                    }
                    (Some(EntryKind::Inline), Some(EntryKind::Handle)) => {}
                    (a, b) => {
                        return Err(format!(
                            "an entry of kind {a:?} came out as {b:?} (sequence {})",
                            p.seq
                        ));
                    }
                }
            }
            Decision::Drop => {
                if kind == Some(EntryKind::Handle) {
                    expected.push((handle_of(p.kind, input.value())?.file, p.seq));
                }
            }
            Decision::Expire => {
                let Some((okey, _)) = outputs.next()? else {
                    return Err(
                        "the outputs end before the merge does: a tombstone is missing".into(),
                    );
                };
                let o = ParsedKey::parse(&okey);
                if o.user_key != p.user_key
                    || o.seq != p.seq
                    || o.entry_kind() != Some(EntryKind::Delete)
                {
                    return Err(format!(
                        "an expired put (sequence {}) did not become a tombstone",
                        p.seq
                    ));
                }
                if kind == Some(EntryKind::Handle) {
                    expected.push((handle_of(p.kind, input.value())?.file, p.seq));
                }
            }
            Decision::Duplicate => {}
        }
        input.next().map_err(err)?;
    }
    if outputs.next()?.is_some() {
        return Err("the outputs hold entries the merge does not keep".into());
    }
    let mut dropped: Vec<(u64, u64)> = outcome
        .drops
        .sorted()
        .into_iter()
        .flat_map(|(file, list)| list.into_iter().map(move |d| (file, d.seq)))
        .collect();
    dropped.sort_unstable();
    expected.sort_unstable();
    if dropped != expected {
        return Err(format!(
            "{} drop records returned, {} expected from the merge, or not the same records",
            dropped.len(),
            expected.len()
        ));
    }
    Ok(())
}

/// An internal key and its value.
type Entry = (Vec<u8>, Vec<u8>);

/// The entries of an outcome's output tables, in order.
struct OutputEntries<'a> {
    tables: std::slice::Iter<'a, crate::format::manifest::TableRecord>,
    env: &'a dyn super::job::PartEnv,
    cache: &'a Arc<BlockCache>,
    current: Option<crate::table::TableIter>,
}

impl<'a> OutputEntries<'a> {
    fn new(
        outcome: &'a PartOutcome,
        env: &'a dyn super::job::PartEnv,
        cache: &'a Arc<BlockCache>,
    ) -> OutputEntries<'a> {
        OutputEntries {
            tables: outcome.tables.iter(),
            env,
            cache,
            current: None,
        }
    }

    fn next(&mut self) -> Result<Option<Entry>, String> {
        let err = |e: crate::Error| format!("reading an output table: {e}");
        loop {
            if let Some(it) = self.current.as_mut() {
                if it.valid() {
                    let entry = (it.key().to_vec(), it.value().to_vec());
                    it.next().map_err(err)?;
                    return Ok(Some(entry));
                }
                self.current = None;
            }
            let Some(record) = self.tables.next() else {
                return Ok(None);
            };
            let t = TableFile::open(self.env.fs(), self.env.dir(), record.clone(), self.cache)
                .map_err(err)?;
            let mut it = t.table.iter(false);
            it.seek_to_first().map_err(err)?;
            self.current = Some(it);
        }
    }
}

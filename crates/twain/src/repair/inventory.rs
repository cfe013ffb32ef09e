//! What a database directory holds, and whether each file reads back intact.
//!
//! Every check here reads a whole file and verifies every checksum it carries; none
//! changes anything.

use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::names::{FileType, file_path, parse_file_name_with_epoch, value_file_path};
use crate::format::vlog::{LogEntryKind, RecordType};
use crate::fs::Fs;
use crate::iter::InternalIterator;
use crate::key::{SeqNo, compare_internal};
use crate::seq_set::SeqSet;
use crate::table::Table;
use crate::vlog::{
    ValueFile, read_drop_file, scan_value_file_past_holes, scan_value_file_skipping,
};
use crate::{Error, Result};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The twain files of a database directory, by kind.
#[derive(Debug, Default)]
pub(super) struct Inventory {
    /// SSTable numbers.
    pub tables: Vec<u64>,
    /// Value file number -> epochs present (0 = value log, >= 1 = SVTable), ascending.
    pub value_files: BTreeMap<u64, Vec<u32>>,
    /// Drop files: (value file number, epoch, file name).
    pub drops: Vec<(u64, u32, String)>,
    /// Manifest numbers.
    pub manifests: Vec<u64>,
    /// Whether `CURRENT` exists.
    pub current: bool,
    /// The largest file number of any kind.
    pub max_number: u64,
}

impl Inventory {
    /// Classifies `names` (the entries of a database directory).
    pub(super) fn of(names: &[String]) -> Inventory {
        let mut inv = Inventory::default();
        for name in names {
            let Some((kind, n, epoch)) = parse_file_name_with_epoch(name) else {
                continue;
            };
            match kind {
                FileType::Table => inv.tables.push(n),
                FileType::ValueLog | FileType::SvTable => {
                    inv.value_files.entry(n).or_default().push(epoch);
                }
                FileType::Drops => inv.drops.push((n, epoch, name.clone())),
                FileType::Manifest => inv.manifests.push(n),
                FileType::Current => inv.current = true,
                FileType::Lock | FileType::Identity | FileType::InfoLog | FileType::Temp => {
                    continue;
                }
            }
            inv.max_number = inv.max_number.max(n);
        }
        inv.tables.sort_unstable();
        inv.manifests.sort_unstable();
        for epochs in inv.value_files.values_mut() {
            epochs.sort_unstable();
        }
        inv
    }

    /// The number of the newest value log (epoch 0) file, the only one that may end in a
    /// torn record.
    pub(super) fn newest_log(&self) -> Option<u64> {
        self.value_files
            .iter()
            .rev()
            .find(|(_, epochs)| epochs.contains(&0))
            .map(|(&n, _)| n)
    }
}

/// Opens table `number` and reads every entry, checking every block's checksum and that
/// keys ascend strictly.
pub(super) fn check_table(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    cache: &Arc<BlockCache>,
) -> Result<Arc<Table>> {
    let path = file_path(dir, FileType::Table, number);
    let reader = fs.open_read(&path).ctx("open", &path)?;
    let size = reader.len().ctx("stat", &path)?;
    let table = Arc::new(Table::open(
        number,
        path.clone(),
        reader,
        size,
        Arc::clone(cache),
    )?);
    let mut it = table.iter(false);
    it.seek_to_first()?;
    let mut prev: Option<Vec<u8>> = None;
    let mut entries = 0u64;
    while it.valid() {
        if let Some(p) = &prev
            && compare_internal(p, it.key()) != Ordering::Less
        {
            return Err(Error::corruption(&path, 0, "keys out of order"));
        }
        prev = Some(it.key().to_vec());
        entries += 1;
        it.next()?;
    }
    if entries != table.properties().num_entries {
        return Err(Error::corruption(
            &path,
            0,
            format!(
                "table holds {entries} entries, its properties say {}",
                table.properties().num_entries
            ),
        ));
    }
    Ok(table)
}

/// An SVTable that read back intact, but for dead entries (punched out by value GC).
pub(super) struct SvtInfo {
    pub file: Arc<ValueFile>,
    pub file_size: u64,
    pub entry_count: u64,
    pub entry_bytes: u64,
    pub max_seq: Option<SeqNo>,
    /// The dead entries that did not read back, as punched runs.
    pub holes: Holes,
}

/// Runs of dead records a value file lost to value GC's hole punching, found again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Holes {
    /// `[start, end)` extents of whole records, in file order.
    pub runs: Vec<(u64, u64)>,
    /// Separated records inside them, and their bytes (0 where the records are unknown).
    pub records: u64,
    pub record_bytes: u64,
    /// Bytes of the whole blocks inside them.
    pub punched_bytes: u64,
}

impl Holes {
    /// The runs made of entries `dead` (offset, length), adjacent ones merged.
    fn of_entries(mut dead: Vec<(u64, u64)>) -> Holes {
        dead.sort_unstable();
        let mut h = Holes::default();
        for &(offset, len) in &dead {
            h.records += 1;
            h.record_bytes += len;
            match h.runs.last_mut() {
                Some(run) if run.1 == offset => run.1 = offset + len,
                _ => h.runs.push((offset, offset + len)),
            }
        }
        h.punched_bytes = h.runs.iter().map(|&(s, e)| whole_blocks(s, e)).sum();
        h
    }
}

/// Bytes of the whole allocation blocks inside `[start, end)`.
fn whole_blocks(start: u64, end: u64) -> u64 {
    let block = crate::fs::ALLOCATION_BLOCK;
    (end / block * block).saturating_sub(start.div_ceil(block) * block)
}

/// Reads SVTable `epoch` of value file `number`: footer, index, and every entry's
/// checksum. An entry that does not read back is damage, unless `dropped` (the sequence
/// numbers its drop file names dead) has it: value GC may have punched it out, and a dead
/// record is not needed anyway. Those become [`SvtInfo::holes`].
pub(super) fn check_svtable(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    (number, epoch): (u64, u32),
    dropped: Option<&SeqSet>,
) -> Result<SvtInfo> {
    let file = Arc::new(ValueFile::with_epoch(Arc::clone(fs), dir, number, epoch));
    let path = value_file_path(dir, number, epoch);
    let file_size = fs.file_size(&path).ctx("stat", &path)?;
    let index = file.svtable()?;
    let footer = *index.footer();
    let mut max_seq = None;
    let mut bytes = 0u64;
    let mut dead = Vec::new();
    for (key, seq, offset, len) in index.entries(&path)? {
        let h = ValueHandle {
            file: number,
            epoch,
            offset,
            len,
        };
        match file.read_value(&h, &key, seq) {
            Ok(_) => {}
            Err(e) if e.is_corruption() && dropped.is_some_and(|d| d.contains(&seq)) => {
                dead.push((offset, u64::from(len)));
            }
            Err(e) => return Err(e),
        }
        bytes += u64::from(len);
        max_seq = max_seq.max(Some(seq));
    }
    if bytes != footer.entry_bytes {
        return Err(Error::corruption(
            &path,
            footer.index_offset,
            format!(
                "entries hold {bytes} bytes, the footer says {}",
                footer.entry_bytes
            ),
        ));
    }
    file.set_counts(file_size, footer.entry_bytes, footer.entry_count);
    Ok(SvtInfo {
        file,
        file_size,
        entry_count: footer.entry_count,
        entry_bytes: footer.entry_bytes,
        max_seq,
        holes: Holes::of_entries(dead),
    })
}

/// What a read of a value log file found.
#[derive(Debug, Clone, Default)]
pub(super) struct LogScan {
    /// Bytes up to the end of the last intact record.
    pub valid_end: u64,
    /// Where the first damaged record starts and what is wrong, if the file is damaged
    /// (a torn tail of the newest file is not damage: open truncates it).
    pub damage: Option<(u64, String)>,
    /// Whether the file ends in a torn record that the next open truncates.
    pub torn: bool,
    /// First sequence number of the first batch, and the last of the last batch.
    pub first_seq: Option<SeqNo>,
    /// The largest sequence number of any batch.
    pub max_seq: Option<SeqNo>,
    /// Separated entries in the intact records, and their bytes.
    pub separated_count: u64,
    /// Bytes of those entries.
    pub separated_bytes: u64,
    /// Whether the last intact record is a seal marker.
    pub ends_with_marker: bool,
    /// Holes the scan stepped over (`vlog::holes`): the extents of whole records value
    /// GC punched out, which the lost manifest named.
    pub holes: Vec<(u64, u64)>,
    /// Bytes of the zeroed blocks in them.
    pub hole_bytes: u64,
    /// With holes: the sequence numbers of the separated entries the scan read (the drop
    /// file also names the records inside the holes).
    pub seen: Option<SeqSet>,
}

/// Reads value log `number` front to back. `newest` says it is the last value log, whose
/// tail may be torn. Damage is reported in the result, not as an error; I/O errors are
/// errors.
pub(super) fn scan_log(fs: &dyn Fs, dir: &Path, number: u64, newest: bool) -> Result<LogScan> {
    let path = file_path(dir, FileType::ValueLog, number);
    let mut out = LogScan::default();
    let mut seen = SeqSet::default();
    let result = scan_value_file_past_holes(fs, &path, number, newest, &[], |at, _len, reader| {
        let header = reader.header();
        let (mut count, mut bytes) = (0u64, 0u64);
        let mut seqs = Vec::new();
        while let Some(e) = reader
            .next_entry()
            .map_err(|e| e.into_corruption(&path, at))?
        {
            if e.kind == LogEntryKind::Separated {
                count += 1;
                bytes += e.len as u64;
                seqs.push(e.seq);
            }
        }
        // Counted only once the whole record decoded.
        out.separated_count += count;
        out.separated_bytes += bytes;
        seen.extend(seqs);
        if header.record_type == RecordType::Batch && out.first_seq.is_none() {
            out.first_seq = Some(header.first_seq);
        }
        Ok(())
    });
    match result {
        Ok(o) => {
            out.valid_end = o.valid_end;
            out.torn = o.torn_at.is_some();
            out.max_seq = o.max_seq;
            out.ends_with_marker = o.ends_with_marker;
            out.holes = o.holes;
            out.hole_bytes = o.hole_bytes;
        }
        Err(Error::Corruption { offset, what, .. }) => {
            out.valid_end = offset;
            out.damage = Some((offset, what));
            // The batches before the damage were all intact (holes stepped over the same
            // way); find their last sequence. Repair cuts the file here and scans it again,
            // which finds the holes before the cut.
            out.max_seq = batches_before(fs, &path, number, offset)?;
        }
        Err(e) => return Err(e),
    }
    if !out.holes.is_empty() {
        out.seen = Some(seen);
    }
    Ok(out)
}

/// The largest batch sequence number in the records of value log `path` that start before
/// `end` (which is where the first damaged record starts), holes stepped over.
fn batches_before(fs: &dyn Fs, path: &Path, number: u64, end: u64) -> Result<Option<SeqNo>> {
    let mut max_seq = None;
    let result = scan_value_file_past_holes(fs, path, number, false, &[], |at, _len, reader| {
        let h = reader.header();
        if at < end && h.record_type == RecordType::Batch {
            max_seq = max_seq.max(Some((h.first_seq + u64::from(h.count)).saturating_sub(1)));
        }
        Ok(())
    });
    match result {
        Ok(_) | Err(Error::Corruption { .. }) => Ok(max_seq),
        Err(e) => Err(e),
    }
}

/// The offset of the first batch record of value log `number` holding a sequence number
/// above `seq`, or the file's valid end if none does.
pub(super) fn first_batch_after(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    seq: SeqNo,
    (valid_end, holes): (u64, &[(u64, u64)]),
) -> Result<u64> {
    let path = file_path(dir, FileType::ValueLog, number);
    let mut found: Option<u64> = None;
    let result = scan_value_file_skipping(fs, &path, number, true, holes, |at, _len, reader| {
        let h = reader.header();
        if found.is_none()
            && at < valid_end
            && h.record_type == RecordType::Batch
            && (h.first_seq + u64::from(h.count)).saturating_sub(1) > seq
        {
            found = Some(at);
        }
        Ok(())
    });
    match result {
        Ok(_) | Err(Error::Corruption { .. }) => Ok(found.unwrap_or(valid_end)),
        Err(e) => Err(e),
    }
}

/// The count and bytes of the drops in drop file `name` of value file `number` whose
/// records are not among `seen` (the sequence numbers a scan read): records inside holes.
pub(super) fn drops_outside(
    fs: &dyn Fs,
    dir: &Path,
    name: &str,
    number: u64,
    seen: &SeqSet,
) -> Result<(u64, u64)> {
    let contents = read_drop_file(fs, &dir.join(name), number)?;
    let outside = contents.set.iter().filter(|(seq, _)| !seen.contains(seq));
    Ok(outside.fold((0, 0), |(c, b), (_, &l)| (c + 1, b + u64::from(l))))
}

/// Drops read from a drop file.
pub(super) struct DropCounts {
    pub count: u64,
    pub bytes: u64,
    /// The dropped sequence numbers.
    pub seqs: SeqSet,
}

/// Reads the drop file at `name` of value file `number`.
pub(super) fn check_drops(fs: &dyn Fs, dir: &Path, name: &str, number: u64) -> Result<DropCounts> {
    let contents = read_drop_file(fs, &dir.join(name), number)?;
    Ok(DropCounts {
        count: contents.set.len() as u64,
        bytes: contents.set.values().map(|&l| u64::from(l)).sum(),
        seqs: contents.set.keys().copied().collect(),
    })
}

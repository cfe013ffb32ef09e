//! Point reads and statistics.
//!
//! A reader needs a super version that holds every version visible at its sequence
//! number: a pair from `DbInner::read_view`, or a registered snapshot's sequence (which
//! flushes and compactions preserve) with any later super version.

use super::{DbInner, SuperVersion, lock};
use crate::format::handle::ValueHandle;
use crate::format::names::{FileType, parse_file_name};
use crate::key::{EntryKind, ParsedKey, SeqNo, lookup_key};
use crate::stats::{Counters, DiskUsage, LevelStats, Stats, ValueFileStats};
use crate::version::Version;
use crate::{Error, Result};
use std::path::Path;

/// The value of `key` visible at `seq`. REQUIRES: `seq` is a registered snapshot's.
pub(crate) fn get(inner: &DbInner, key: &[u8], seq: SeqNo) -> Result<Option<Vec<u8>>> {
    let sv = inner.super_version();
    get_in(inner, &sv, key, seq)
}

/// The value of `key` visible at `seq` in `sv`. REQUIRES: `sv` holds every version
/// visible at `seq` (see the module docs).
pub(crate) fn get_in(
    inner: &DbInner,
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
) -> Result<Option<Vec<u8>>> {
    Counters::add(&inner.counters.gets, 1);
    let lookup = lookup_key(key, seq);
    for mem in std::iter::once(&sv.mem).chain(&sv.imms) {
        if let Some((ikey, value)) = mem.get(&lookup) {
            return resolve(inner, &sv.version, Path::new("memtable"), &ikey, value);
        }
    }
    let version = &sv.version;
    for t in version.levels.first().into_iter().flatten() {
        if key < t.smallest_user_key() || key > t.largest_user_key() {
            continue;
        }
        if let Some((ikey, value)) = t.table.get(&lookup)? {
            return resolve(inner, version, t.table.path(), &ikey, value);
        }
    }
    for level in 1..version.levels.len() {
        if let Some(t) = version.table_for_key(level, key)
            && let Some((ikey, value)) = t.table.get(&lookup)?
        {
            return resolve(inner, version, t.table.path(), &ikey, value);
        }
    }
    Ok(None)
}

/// Turns a found entry into the user's value: nothing for a tombstone, the bytes for an
/// inline value, the value file's bytes for a handle. `source` names where the entry came
/// from, for errors.
pub(crate) fn resolve(
    inner: &DbInner,
    version: &Version,
    source: &Path,
    ikey: &[u8],
    value: Vec<u8>,
) -> Result<Option<Vec<u8>>> {
    let p = ParsedKey::parse(ikey);
    match p.entry_kind() {
        Some(EntryKind::Delete) => Ok(None),
        Some(EntryKind::Inline) => Ok(Some(value)),
        Some(EntryKind::Handle) => {
            read_handle(inner, version, source, p.user_key, p.seq, &value).map(Some)
        }
        None => Err(Error::corruption(
            source,
            0,
            format!("entry of unknown kind {}", p.kind),
        )),
    }
}

/// Reads the value a handle entry points at.
pub(crate) fn read_handle(
    inner: &DbInner,
    version: &Version,
    source: &Path,
    key: &[u8],
    seq: SeqNo,
    encoded: &[u8],
) -> Result<Vec<u8>> {
    let h = ValueHandle::decode(encoded)
        .map_err(|e| Error::corruption(source, 0, format!("bad value handle: {}", e.what)))?;
    let file = version.value_files.get(&h.file).ok_or_else(|| {
        Error::corruption(
            source,
            0,
            format!("value handle names missing value file {}", h.file),
        )
    })?;
    let v = file.read_value(&h, key, seq)?;
    Counters::add(&inner.counters.value_reads, 1);
    Counters::add(&inner.counters.value_bytes_read, u64::from(h.len));
    Ok(v)
}

/// Collects the statistics.
pub(crate) fn stats(inner: &DbInner) -> Result<Stats> {
    let c = &inner.counters;
    let sv = inner.super_version();
    let version = &sv.version;
    let manifest_bytes = lock(&inner.versions).bytes_written();
    let mut referenced = 0u64;
    let levels = version
        .levels
        .iter()
        .map(|files| {
            let mut s = LevelStats::default();
            for t in files {
                let p = t.table.properties();
                s.files += 1;
                s.bytes += t.record.file_size;
                s.entries += p.num_entries;
                referenced += p.raw_key_bytes + p.raw_value_bytes;
            }
            s
        })
        .collect();
    let mut value_files = Vec::new();
    for (&number, state) in &version.state.value_files {
        let Some(file) = version.value_files.get(&number) else {
            continue;
        };
        let separated = file.separated_bytes();
        referenced += separated.saturating_sub(state.dropped_bytes);
        value_files.push(ValueFileStats {
            number,
            is_log: state.sealed.is_none(),
            total_bytes: file.total_bytes(),
            separated_bytes: separated,
            dropped_bytes: state.dropped_bytes,
            valid_rate: if separated == 0 {
                1.0
            } else {
                separated.saturating_sub(state.dropped_bytes) as f64 / separated as f64
            },
        });
    }
    let (mut mem_entries, mut mem_bytes) = (0, 0);
    for m in std::iter::once(&sv.mem).chain(&sv.imms) {
        mem_entries += m.len();
        mem_bytes += m.approximate_bytes() as u64;
    }
    Ok(Stats {
        user_bytes_written: Counters::get(&c.user_bytes),
        user_ops: Counters::get(&c.user_ops),
        write_groups: Counters::get(&c.write_groups),
        synced_groups: Counters::get(&c.synced_groups),
        log_bytes_written: Counters::get(&c.log_bytes),
        stall_micros: Counters::get(&c.stall_micros),
        slowdowns: Counters::get(&c.slowdowns),
        flushes: Counters::get(&c.flushes),
        flush_bytes_written: Counters::get(&c.flush_bytes),
        compactions: Counters::get(&c.compactions),
        trivial_moves: Counters::get(&c.trivial_moves),
        compaction_bytes_read: Counters::get(&c.compaction_bytes_read),
        compaction_bytes_written: Counters::get(&c.compaction_bytes_written),
        drop_records: Counters::get(&c.drop_records),
        drop_file_bytes_written: Counters::get(&c.drop_file_bytes),
        manifest_bytes_written: manifest_bytes,
        gets: Counters::get(&c.gets),
        value_reads: Counters::get(&c.value_reads),
        value_bytes_read: Counters::get(&c.value_bytes_read),
        recovered_torn_bytes: Counters::get(&c.recovered_torn_bytes),
        block_cache_hits: inner.cache.hits(),
        block_cache_misses: inner.cache.misses(),
        levels,
        value_files,
        disk: disk_usage(inner)?,
        memtable_entries: mem_entries,
        memtable_bytes: mem_bytes,
        referenced_bytes: referenced,
    })
}

fn disk_usage(inner: &DbInner) -> Result<DiskUsage> {
    use crate::error::IoContext;
    let mut d = DiskUsage::default();
    for name in inner.fs.list_dir(&inner.dir).ctx("list", &inner.dir)? {
        let path = inner.dir.join(&name);
        // A file deleted between listing and stat is simply not counted.
        let Ok(size) = inner.fs.file_size(&path) else {
            continue;
        };
        match parse_file_name(&name).map(|(k, _)| k) {
            Some(FileType::Table) => d.tables += size,
            Some(FileType::ValueLog) => d.value_files += size,
            Some(FileType::Drops) => d.drop_files += size,
            Some(FileType::Manifest | FileType::Current) => d.manifest += size,
            _ => d.other += size,
        }
    }
    Ok(d)
}

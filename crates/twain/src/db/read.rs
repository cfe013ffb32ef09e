//! Point reads and statistics.
//!
//! A reader needs a super version that holds every version visible at its sequence
//! number: a pair from `DbInner::read_view`, or a registered snapshot's sequence (which
//! flushes and compactions preserve) with any later super version.

use super::range_view::RangeView;
use super::{DbInner, SuperVersion, lock};
use crate::format::handle::ValueHandle;
use crate::key::{
    EXPIRY_LEN, EntryKind, ParsedKey, SeqNo, append_expiring_value, is_expired, lookup_key,
    put_kind, split_expiry,
};
use crate::options::{GcMode, ReadOptions};
use crate::stats::{Counters, LevelStats, Stats, ValueFileStats};
use crate::vlog::{ScanHints, ValueFile};
use crate::{Error, Result};
use bytes::Bytes;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The value of `key` visible at `seq`. REQUIRES: `seq` is a registered snapshot's.
pub(crate) fn get(
    inner: &DbInner,
    key: &[u8],
    seq: SeqNo,
    opts: &ReadOptions,
) -> Result<Option<Vec<u8>>> {
    let sv = inner.super_version();
    Ok(get_in(inner, &sv, key, seq, opts, false)?.map(into_vec))
}

/// A value read as [`Bytes`], in a `Vec` of its own for the copying calls: without a copy
/// when the bytes own their buffer alone (a memtable's value, a separated value read for
/// this call), and never holding much more than the value: a slice of a larger buffer (a
/// prefetched run of several values) is copied out or the spare room released.
pub(crate) fn into_vec(value: Bytes) -> Vec<u8> {
    let mut v = Vec::from(value);
    if v.capacity() > 2 * v.len().max(64) {
        v.shrink_to_fit();
    }
    v
}

/// As [`get`], the value shared with the table block or read buffer it lies in, not
/// copied out of it.
pub(crate) fn get_pinned(
    inner: &DbInner,
    key: &[u8],
    seq: SeqNo,
    opts: &ReadOptions,
) -> Result<Option<Bytes>> {
    let sv = inner.super_version();
    get_in(inner, &sv, key, seq, opts, true)
}

/// The value of `key` visible at `seq` in `sv`. REQUIRES: `sv` holds every version
/// visible at `seq` (see the module docs). With `pin`, a value found in a table shares its
/// data block (else it is copied out: the caller wants a `Vec`).
pub(crate) fn get_in(
    inner: &DbInner,
    sv: &SuperVersion,
    key: &[u8],
    seq: SeqNo,
    opts: &ReadOptions,
    pin: bool,
) -> Result<Option<Bytes>> {
    Counters::add(&inner.counters.gets, 1);
    match find(sv, key, seq, opts.fill_cache, pin)? {
        Some(found) => resolve(
            inner,
            sv,
            seq,
            inner.opts.clock.now_millis(),
            found.source,
            &found.ikey,
            found.value,
            Reader::Get,
        ),
        None => Ok(None),
    }
}

/// The newest entry of a key visible at a sequence, its value not read yet.
pub(crate) struct FoundEntry<'a> {
    /// Where it was found, for errors: `memtable` or a table's path.
    pub source: &'a Path,
    pub ikey: Vec<u8>,
    pub value: Bytes,
}

/// The newest entry of `key` visible at `seq` in `sv`, if any (a tombstone included);
/// table blocks read enter the block cache if `fill_cache`; with `pin` a value found in a
/// table shares its block instead of being copied. REQUIRES: as [`get_in`].
///
/// A version hidden by a range deletion comes back as a tombstone at the deletion's
/// sequence.
pub(crate) fn find<'a>(
    sv: &'a SuperVersion,
    key: &[u8],
    seq: SeqNo,
    fill_cache: bool,
    pin: bool,
) -> Result<Option<FoundEntry<'a>>> {
    let Some(found) = find_entry(sv, key, seq, fill_cache, pin)? else {
        return Ok(None);
    };
    Ok(Some(found.judged(&RangeView::of(sv, seq))))
}

impl FoundEntry<'_> {
    /// The entry as `view` shows it: a tombstone at the deletion's sequence if one of its
    /// range deletions hides it.
    pub(crate) fn judged(mut self, view: &RangeView) -> Self {
        let (ikey, hidden) = view.judge(self.ikey);
        self.ikey = ikey;
        if hidden {
            self.value = Bytes::new();
        }
        self
    }
}

/// The tables a point read of `key` probes in `version`, in the order it probes them: the
/// level-0 tables whose range holds it, newest first, then the one table of each deeper
/// level whose range holds it.
pub(crate) fn tables_for_key<'a>(
    version: &'a crate::version::Version,
    key: &[u8],
) -> impl Iterator<Item = &'a Arc<crate::version::TableFile>> {
    let level0 = version
        .levels
        .first()
        .into_iter()
        .flatten()
        .filter(move |t| key >= t.smallest_user_key() && key <= t.largest_user_key());
    let deeper =
        (1..version.levels.len()).filter_map(move |level| version.table_for_key(level, key));
    level0.chain(deeper)
}

/// The newest entry of the key `lookup` names in the memtables of `sv`, if any.
pub(crate) fn in_memtables(sv: &SuperVersion, lookup: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    std::iter::once(&sv.mem)
        .chain(&sv.imms)
        .find_map(|mem| mem.get(lookup))
}

/// [`find`], range deletions aside.
fn find_entry<'a>(
    sv: &'a SuperVersion,
    key: &[u8],
    seq: SeqNo,
    fill_cache: bool,
    pin: bool,
) -> Result<Option<FoundEntry<'a>>> {
    let lookup = lookup_key(key, seq);
    let found = |source: &'a Path, (ikey, value): (Vec<u8>, Bytes)| FoundEntry {
        source,
        ikey,
        value,
    };
    let in_table = |table: &crate::table::Table| -> Result<Option<(Vec<u8>, Bytes)>> {
        if pin {
            table.get_pinned(&lookup, fill_cache)
        } else {
            Ok(table
                .get_with(&lookup, fill_cache)?
                .map(|(k, v)| (k, Bytes::from(v))))
        }
    };
    if let Some((ikey, value)) = in_memtables(sv, &lookup) {
        return Ok(Some(found(
            Path::new("memtable"),
            (ikey, Bytes::from(value)),
        )));
    }
    for t in tables_for_key(&sv.version, key) {
        if let Some(entry) = in_table(&t.table)? {
            return Ok(Some(found(t.table.path(), entry)));
        }
    }
    Ok(None)
}

/// The newest entry of `key` in `sv` (at any sequence), without reading its value; a
/// tombstone if a range deletion hides it.
pub(crate) fn newest_entry(sv: &SuperVersion, key: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let Some((ikey, value)) = newest_stored(sv, key)? else {
        return Ok(None);
    };
    match RangeView::of(sv, crate::key::MAX_SEQNO).judge(ikey) {
        (ikey, true) => Ok(Some((ikey, Vec::new()))),
        (ikey, false) => Ok(Some((ikey, value))),
    }
}

/// [`newest_entry`], range deletions aside.
fn newest_stored(sv: &SuperVersion, key: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let lookup = lookup_key(key, crate::key::MAX_SEQNO);
    if let Some(found) = in_memtables(sv, &lookup) {
        return Ok(Some(found));
    }
    for t in tables_for_key(&sv.version, key) {
        if let Some(found) = t.table.get(&lookup)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Who reads a handle: a point read, or a scan (an iterator or a lazy entry of one), which
/// passes its search hints when it resolves keys in ascending order. Scans count their
/// stale handles apart (`Stats::scan_svtable_searches`).
pub(crate) enum Reader<'a> {
    Get,
    Scan(Option<&'a mut ScanHints>),
}

/// Turns a found entry into the user's value: nothing for a tombstone, the bytes for an
/// inline value, the value file's bytes for a handle. The entry is the newest version of
/// its key visible at `view`; `source` names where it came from, for errors.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve(
    inner: &DbInner,
    sv: &SuperVersion,
    view: SeqNo,
    now: u64,
    source: &Path,
    ikey: &[u8],
    value: Bytes,
    by: Reader<'_>,
) -> Result<Option<Bytes>> {
    let p = ParsedKey::parse(ikey);
    let kind = p.entry_kind();
    if kind == Some(EntryKind::Delete) {
        return Ok(None);
    }
    let Ok((expires_at, payload)) = split_expiry(p.kind, &value) else {
        return Err(Error::corruption(
            source,
            0,
            "an expiring entry too short for its expiry time",
        ));
    };
    if is_expired(expires_at, now) {
        return Ok(None);
    }
    match kind {
        Some(EntryKind::Inline) if expires_at.is_none() => Ok(Some(value)),
        // The payload follows the expiry time: share it rather than copy.
        Some(EntryKind::Inline) => Ok(Some(value.slice(value.len() - payload.len()..))),
        Some(EntryKind::Handle) => {
            read_handle(inner, sv, view, source, &p, expires_at, payload, by).map(Some)
        }
        _ => Err(Error::corruption(
            source,
            0,
            format!("entry of unknown kind {}", p.kind),
        )),
    }
}

/// Reads the value a handle entry points at.
///
/// The handle's epoch names the physical file it was made for. It is looked up in the
/// reader's own version, then among the files its memtables pin for fix-ups, then in the
/// current version. An older epoch than the file's means value GC rewrote the file since:
/// the entry is found in the SVTable by key and sequence — in the reader's own version's
/// epoch if that is newer than the handle's, else the current one's — and, if the file is
/// the current one and the entry is still the key's newest version, the handle is fixed
/// lazily.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_handle(
    inner: &DbInner,
    sv: &SuperVersion,
    view: SeqNo,
    source: &Path,
    entry: &ParsedKey<'_>,
    expires_at: Option<u64>,
    encoded: &[u8],
    by: Reader<'_>,
) -> Result<Bytes> {
    let (key, seq) = (entry.user_key, entry.seq);
    let h = ValueHandle::decode(encoded)
        .map_err(|e| Error::corruption(source, 0, format!("bad value handle: {}", e.what)))?;
    let read = |file: &ValueFile, h: &ValueHandle| {
        let v = file.read_value_bytes(h, key, seq, inner.opts.mmap_reads)?;
        Counters::add(&inner.counters.value_reads, 1);
        Counters::add(&inner.counters.value_bytes_read, u64::from(h.len));
        Ok(v)
    };
    let own = sv.version.value_files.get(&h.file);
    if let Some(f) = own.filter(|f| f.epoch() == h.epoch) {
        return read(f, &h);
    }
    for m in std::iter::once(&sv.mem).chain(&sv.imms) {
        if let Some(f) = m.pinned_file(h.file, h.epoch) {
            return read(&f, &h);
        }
    }
    let current = Arc::clone(&inner.super_version().version);
    // IMPORTANT: a rewritten file is searched in the reader's own version when that has
    // it at a newer epoch than the handle: the view holds every record its entries need.
    // The current version's epoch may be newer still, made by a value GC that knew of
    // drops by compactions after the view: it lacks records that the view still sees.
    // Hash layout, the same rule: a segment the view no longer has was merged into its
    // group's main segment, and the view's main and cold segments hold what the view sees
    // (a record of the main segment may have moved to a cold one).
    if let Some(f) = own.filter(|f| f.epoch() > h.epoch) {
        let files = with_chain(Arc::clone(f), sv.version.hash_chain(key));
        return search(inner, view, entry, expires_at, &current, files, by, &read);
    }
    if own.is_none() {
        let chain = sv.version.hash_chain(key);
        if !chain.is_empty() {
            return search(inner, view, entry, expires_at, &current, chain, by, &read);
        }
    }
    let files = match current.value_files.get(&h.file) {
        Some(f) if f.epoch() == h.epoch => return read(f, &h),
        Some(f) if f.epoch() > h.epoch => with_chain(Arc::clone(f), current.hash_chain(key)),
        Some(f) => {
            return Err(Error::corruption(
                source,
                0,
                format!(
                    "value handle names epoch {} of value file {}, which is at epoch {}",
                    h.epoch,
                    h.file,
                    f.epoch()
                ),
            ));
        }
        // Hash layout: the group's GC merged the segment into the group's main one.
        None => {
            let chain = current.hash_chain(key);
            if chain.is_empty() {
                return Err(Error::corruption(
                    source,
                    0,
                    format!("value handle names missing value file {}", h.file),
                ));
            }
            chain
        }
    };
    search(inner, view, entry, expires_at, &current, files, by, &read)
}

/// `file` first, then the rest of a hash-layout group's `chain` (empty in the log layout).
fn with_chain(file: Arc<ValueFile>, chain: Vec<Arc<ValueFile>>) -> Vec<Arc<ValueFile>> {
    let rest: Vec<_> = chain
        .into_iter()
        .filter(|c| c.number() != file.number())
        .collect();
    std::iter::once(file).chain(rest).collect()
}

/// Finds record `seq` of `key` by search in the first of `files` that holds it (later
/// epochs of the file a handle names, or a hash-layout group's segments), and reads it;
/// fixes the handle up if that file is the current version's.
#[allow(clippy::too_many_arguments)]
fn search(
    inner: &DbInner,
    view: SeqNo,
    entry: &ParsedKey<'_>,
    expires_at: Option<u64>,
    current: &crate::version::Version,
    files: Vec<Arc<ValueFile>>,
    by: Reader<'_>,
    read: &dyn Fn(&ValueFile, &ValueHandle) -> Result<Bytes>,
) -> Result<Bytes> {
    let (key, seq) = (entry.user_key, entry.seq);
    Counters::add(&inner.counters.svtable_searches, 1);
    let mut hints = match by {
        Reader::Get => None,
        Reader::Scan(hints) => {
            Counters::add(&inner.counters.scan_svtable_searches, 1);
            hints
        }
    };
    // A damaged index in one segment of a group must not hide a record another holds: the
    // damage is reported only if no file has the record.
    let mut damage = None;
    for file in &files {
        let found = match hints.as_deref_mut() {
            Some(h) => file.find_near(key, seq, h.index_hint(file.number(), file.epoch())),
            None => file.find(key, seq),
        };
        let found = match found {
            Ok(Some(found)) => found,
            Ok(None) => continue,
            Err(e @ Error::Corruption { .. }) if files.len() > 1 => {
                damage.get_or_insert(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        let value = read(file, &found)?;
        fix_if_current(inner, view, (key, seq, expires_at), &found, file, current)?;
        return Ok(value);
    }
    if let Some(e) = damage {
        return Err(e);
    }
    let path = files
        .first()
        .map_or_else(Default::default, |f| f.path().to_path_buf());
    Err(Error::corruption(
        &path,
        0,
        format!("a live entry (sequence {seq}) is missing from the rewritten value file"),
    ))
}

/// After a search found `key@seq`'s record at `found` in `file`: fixes the handle up if
/// `file` is the `current` version's and handles are fixed in this GC mode.
pub(crate) fn fix_if_current(
    inner: &DbInner,
    view: SeqNo,
    entry: (&[u8], SeqNo, Option<u64>),
    found: &ValueHandle,
    file: &Arc<ValueFile>,
    current: &crate::version::Version,
) -> Result<()> {
    let is_current = current
        .value_files
        .get(&file.number())
        .is_some_and(|f| Arc::ptr_eq(f, file));
    if is_current && inner.opts.gc_mode == GcMode::DropRecords {
        fix_handle(inner, view, entry, found, file)?;
    }
    Ok(())
}

/// Re-inserts `key@seq` with its new handle into the active memtable, if that entry is
/// still the key's newest version. The check and the insert happen under the write lock,
/// so no newer write can slip in between; an entry that is no longer the newest is left
/// alone, so a fix-up can never hide a newer write or bring back a deleted key.
///
/// `key@seq` was the newest version visible at `view`. If nothing has been written since
/// (the visible sequence is still `view` under the write lock), it is still the newest and
/// the key store need not be searched again — the common case in a phase of reads.
pub(crate) fn fix_handle(
    inner: &DbInner,
    view: SeqNo,
    (key, seq, expires_at): (&[u8], SeqNo, Option<u64>),
    handle: &ValueHandle,
    file: &Arc<ValueFile>,
) -> Result<bool> {
    // Never to a dropped record: a manual compaction may have merged it inline
    // (`compaction::place`). Checked before the write lock; the drop lock is held across
    // fsyncs, so a busy one means no fix-up rather than a wait for the disk. A manual
    // compaction that starts after the check is seen below by its count.
    let manual_before = inner.manual_compactions.load(Ordering::SeqCst);
    match inner
        .drop_index
        .try_is_dropped(file.number(), file.epoch(), seq)
    {
        Some(false) => {}
        Some(true) | None => return Ok(false),
    }
    // A fix-up is an optimization: never wait for a writer (one may be stalled, holding
    // the write state until a flush makes room).
    let ws = match inner.write.state.try_lock() {
        Ok(ws) => ws,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return Ok(false),
    };
    // Never while a manual compaction may merge records of rewritten files into the tree.
    if inner.fixups_paused.load(Ordering::SeqCst) > 0
        || inner.manual_compactions.load(Ordering::SeqCst) != manual_before
    {
        return Ok(false);
    }
    let unchanged = inner.visible_seq.load(Ordering::Acquire) == view;
    if !unchanged {
        let sv = inner.super_version();
        let Some((ikey, _)) = newest_entry(&sv, key)? else {
            return Ok(false);
        };
        let p = ParsedKey::parse(&ikey);
        if p.seq != seq || p.entry_kind() != Some(EntryKind::Handle) {
            return Ok(false);
        }
    }
    // The fixed entry keeps the expiry of the one it replaces (same sequence, same kind).
    let ikey = crate::key::internal_key(key, seq, put_kind(EntryKind::Handle, expires_at));
    let mut value = Vec::with_capacity(EXPIRY_LEN + 24);
    append_expiring_value(&mut value, expires_at, &handle.encode());
    ws.mem.pin(file);
    ws.mem.insert(&ikey, &value);
    Counters::add(&inner.counters.handle_fixups, 1);
    Ok(true)
}

/// Collects the statistics: O(files), no table is read (the live data comes from the
/// cached pass, see `space`).
pub(crate) fn stats(inner: &DbInner) -> Result<Stats> {
    let c = &inner.counters;
    // The version generation and sequence number say how far behind the cached pass is.
    let (sv, generation_now, seq_now) = super::space::current(inner);
    let version = &sv.version;
    let (manifest_bytes, dead_deleted, totals) = {
        let v = lock(&inner.versions);
        let totals = v.totals_at_open().plus(v.totals_since_open());
        (v.bytes_written(), v.dead_files_deleted(), totals)
    };
    // The live data of the last pass the background (or a refresh) made; a failed pass
    // leaves the figures that need it missing and says why.
    let pass = inner.live_cache.last();
    let (live, live_error) = match pass.as_ref().map(|p| &p.outcome) {
        Some(Ok(live)) => (Some(Arc::clone(live)), None),
        Some(Err(e)) => (None, Some(e.clone())),
        None => (None, None),
    };
    let live_pass = pass.filter(|p| p.outcome.is_ok());
    let mut dropped = 0u64;
    let shadowed = live.as_ref().map_or(0, |l| {
        super::space::shadowed_bytes(&version.state, version, l)
    });
    let mut referenced = 0u64;
    let targets = super::background::shape(inner).targets(&version.state);
    let last = version.levels.len().saturating_sub(1);
    let levels: Vec<LevelStats> = version
        .levels
        .iter()
        .enumerate()
        .map(|(level, files)| {
            let mut s = LevelStats::default();
            if level > 0 && level >= targets.base && level < last {
                s.target_bytes = targets.bytes.get(level).copied().unwrap_or(0);
            }
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
    let mut log_garbage = 0u64;
    let (mut transient_files, mut transient_bytes) = (0u64, 0u64);
    for (&number, state) in &version.state.value_files {
        let Some(file) = version.value_files.get(&number) else {
            continue;
        };
        if state.origin == crate::format::manifest::ValueFileOrigin::Transient {
            transient_files += 1;
            transient_bytes += file.total_bytes().saturating_sub(state.punched_bytes);
        }
        let separated = file.separated_bytes();
        let not_dropped = separated.saturating_sub(state.dropped_bytes);
        referenced += not_dropped;
        dropped += state.unpunched_dropped_bytes().min(separated);
        if state.sealed.is_none() {
            let header = crate::format::file_header::FILE_HEADER_LEN as u64;
            log_garbage += file
                .total_bytes()
                .saturating_sub(separated)
                .saturating_sub(header);
        }
        value_files.push(ValueFileStats {
            number,
            epoch: file.epoch(),
            is_log: state.sealed.is_none(),
            total_bytes: file.total_bytes(),
            separated_bytes: separated,
            dropped_bytes: state.dropped_bytes,
            punched_bytes: state.punched_record_bytes,
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
    let disk = super::space::disk_usage(inner)?;
    let entries_upper_bound = mem_entries + levels.iter().map(|l| l.entries).sum::<u64>();
    Ok(Stats {
        totals,
        user_bytes_written: Counters::get(&c.user_bytes),
        user_ops: Counters::get(&c.user_ops),
        write_groups: Counters::get(&c.write_groups),
        synced_groups: Counters::get(&c.synced_groups),
        log_bytes_written: Counters::get(&c.log_bytes),
        stall_micros: Counters::get(&c.stall_micros),
        slowdowns: Counters::get(&c.slowdowns),
        stalls_memtables: Counters::get(&c.stalls_memtables),
        stall_memtables_micros: Counters::get(&c.stall_memtables_micros),
        stalls_l0: Counters::get(&c.stalls_l0),
        stall_l0_micros: Counters::get(&c.stall_l0_micros),
        stalls_log_file: Counters::get(&c.stalls_log_file),
        stall_log_file_micros: Counters::get(&c.stall_log_file_micros),
        stalls_space: Counters::get(&c.stalls_space),
        stall_space_micros: Counters::get(&c.stall_space_micros),
        log_files_deleted_unsynced: Counters::get(&c.log_files_deleted_unsynced),
        log_bytes_deleted_unsynced: Counters::get(&c.log_bytes_deleted_unsynced),
        flushes: Counters::get(&c.flushes),
        flush_bytes_written: Counters::get(&c.flush_bytes),
        compactions: Counters::get(&c.compactions),
        trivial_moves: Counters::get(&c.trivial_moves),
        compaction_parts: Counters::get(&c.compaction_parts),
        split_compactions: Counters::get(&c.split_compactions),
        parts_offloaded: Counters::get(&c.parts_offloaded),
        parts_taken_back: Counters::get(&c.parts_taken_back),
        worker_bytes_written: Counters::get(&c.worker_bytes_written),
        offload_check_bytes: Counters::get(&c.offload_check_bytes),
        last_offload_failure: lock(&inner.offload.last_failure).clone(),
        compaction_bytes_read: Counters::get(&c.compaction_bytes_read),
        compaction_bytes_written: Counters::get(&c.compaction_bytes_written),
        drop_records: Counters::get(&c.drop_records),
        drop_file_bytes_written: Counters::get(&c.drop_file_bytes),
        manifest_bytes_written: manifest_bytes,
        gets: Counters::get(&c.gets),
        value_reads: Counters::get(&c.value_reads),
        value_bytes_read: Counters::get(&c.value_bytes_read),
        prefetch_reads: Counters::get(&c.prefetch_reads),
        multi_get_reads: Counters::get(&c.multi_get_reads),
        prefetch_bytes: Counters::get(&c.prefetch_bytes),
        prefetch_wasted_bytes: Counters::get(&c.prefetch_wasted_bytes),
        prefetch_stale_reads: Counters::get(&c.prefetch_stale_reads),
        recovered_torn_bytes: Counters::get(&c.recovered_torn_bytes),
        gc_runs: Counters::get(&c.gc_runs),
        gc_bytes_read: Counters::get(&c.gc_bytes_read),
        gc_bytes_written: Counters::get(&c.gc_bytes_written),
        gc_files_deleted_unread: dead_deleted,
        gc_lsm_lookups: Counters::get(&c.gc_lsm_lookups),
        gc_records_relocated: Counters::get(&c.gc_records_relocated),
        svtable_searches: Counters::get(&c.svtable_searches),
        scan_svtable_searches: Counters::get(&c.scan_svtable_searches),
        compaction_handle_refreshes: Counters::get(&c.compaction_handle_refreshes),
        handle_fixups: Counters::get(&c.handle_fixups),
        expired_entries: Counters::get(&c.expired_entries),
        range_deletions: Counters::get(&c.range_deletions),
        range_deletion_tombstones: Counters::get(&c.range_deletion_tombstones),
        block_cache_hits: inner.cache.hits(),
        block_cache_misses: inner.cache.misses(),
        levels,
        value_files,
        disk,
        memtable_entries: mem_entries,
        memtable_bytes: mem_bytes,
        referenced_bytes: referenced,
        live_bytes: live.as_ref().map_or(referenced, |l| l.bytes),
        live_keys: live.as_ref().map_or(entries_upper_bound, |l| l.keys),
        expiring_keys: live.as_ref().map_or(0, |l| l.expiring_keys),
        live_bytes_age: live_pass.as_ref().map(|p| p.started.elapsed()),
        live_bytes_versions_behind: live_pass
            .as_ref()
            .map_or(0, |p| generation_now.saturating_sub(p.generation)),
        live_bytes_writes_behind: live_pass
            .as_ref()
            .map_or(0, |p| seq_now.saturating_sub(p.seq)),
        live_bytes_error: live_error,
        reclaimable_dropped_bytes: dropped,
        reclaimable_shadowed_bytes: shadowed,
        gc_corrupt_dead_records: Counters::get(&c.gc_corrupt_dead_records),
        gc_files_set_aside: Counters::get(&c.gc_files_set_aside),
        reclaimable_log_bytes: log_garbage,
        space_amp_target: inner.opts.space_amp_target,
        garbage_compactions: Counters::get(&c.garbage_compactions),
        logs_sealed_for_gc: Counters::get(&c.logs_sealed_for_gc),
        refresh_compactions: Counters::get(&c.refresh_compactions),
        stale_handles: live.as_ref().map_or(0, |l| l.stale_handles.values().sum()),
        gc_punched_bytes: Counters::get(&c.gc_punched_bytes),
        gc_punch_runs: Counters::get(&c.gc_punch_runs),
        gc_punch_unsupported: Counters::get(&c.gc_punch_unsupported) > 0,
        small_bytes_written: Counters::get(&c.small_bytes_written),
        medium_bytes_written: Counters::get(&c.medium_bytes_written),
        large_bytes_written: Counters::get(&c.large_bytes_written),
        transient_bytes_written: Counters::get(&c.transient_bytes_written),
        hash_segment_bytes_written: Counters::get(&c.hash_segment_bytes_written),
        hash_gc_bytes_not_copied: Counters::get(&c.hash_gc_bytes_not_copied),
        transient_bytes_freed: Counters::get(&c.transient_bytes_freed),
        medium_bytes_merged: Counters::get(&c.medium_bytes_merged),
        replaced_inline_bytes: Counters::get(&c.replaced_inline_bytes),
        replaced_separated_bytes: Counters::get(&c.replaced_separated_bytes),
        transient_files,
        transient_bytes,
        hash_layout: hash_layout_stats(inner, version),
    })
}

/// The hash layout's figures, if the database uses it.
fn hash_layout_stats(
    inner: &DbInner,
    version: &crate::version::Version,
) -> Option<crate::stats::HashLayoutStats> {
    let groups = version.state.hash_groups?;
    let r = super::group_gc::reserved(inner);
    let segments = version
        .state
        .value_files
        .values()
        .filter(|f| f.origin == crate::format::manifest::ValueFileOrigin::Hash)
        .count() as u64;
    let cold: Vec<u64> = version
        .state
        .value_files
        .values()
        .filter(|f| f.hash_role() == Some(crate::hash_layout::Role::Cold))
        .filter_map(|f| f.sealed.map(|s| s.total_bytes))
        .collect();
    let c = &inner.counters;
    Some(crate::stats::HashLayoutStats {
        groups,
        reserved_bytes: r.used,
        reserved_garbage: r.garbage,
        cold_garbage: r.cold,
        reserved_budget: r.budget,
        main_bytes: r.main,
        segments,
        cold_bytes: cold.iter().sum(),
        cold_segments: cold.len() as u64,
        flush_waits: Counters::get(&c.hash_flush_waits),
        flush_wait_micros: Counters::get(&c.hash_flush_wait_micros),
    })
}

#[cfg(test)]
mod tests {
    use crate::fs::{Fs, MemFs};
    use crate::{Db, GcMode, Options};
    use std::sync::{Arc, mpsc};
    use std::time::Duration;

    fn value(tag: &str, i: u32) -> Vec<u8> {
        format!("{tag}-{i:04}-").repeat(10).into_bytes()
    }

    /// A read that meets a stale handle while a flush, compaction or GC install holds the
    /// drop lock (it keeps it across syncs) returns its value without waiting for the
    /// lock, and leaves the handle for a later read to fix up.
    #[test]
    fn a_stale_read_does_not_wait_for_the_drop_lock() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let opts = Options::default()
            .fs(fs)
            .memtable_size(1 << 20)
            .value_file_size(16 << 10)
            .inline_threshold(32)
            .l0_compaction_trigger(100)
            .l0_slowdown_trigger(100)
            .l0_stop_trigger(100)
            .gc_enabled(false)
            .gc_mode(GcMode::DropRecords)
            .gc_threshold(1.0);
        let db = Arc::new(Db::open(std::path::Path::new("/db"), opts).unwrap());
        // One sealed value file, a third of it overwritten and compacted, then collected:
        // the handles of the rest name its old epoch.
        for i in 0..60u32 {
            db.put(format!("k{i:04}"), value("a", i)).unwrap();
        }
        db.put("roll", vec![0u8; 20 << 10]).unwrap();
        db.compact_range(None, None).unwrap();
        let first = db.stats().unwrap().value_files[0].number;
        for i in 40..60u32 {
            db.put(format!("k{i:04}"), value("b", i)).unwrap();
        }
        db.compact_range(None, None).unwrap();
        db.gc().unwrap();
        let stats = db.stats().unwrap();
        let file = stats.value_files.iter().find(|f| f.number == first);
        assert_eq!(file.map(|f| f.epoch), Some(1), "the file was collected");

        let held = db.inner.drop_index.lock();
        let (tx, rx) = mpsc::channel();
        let reader = Arc::clone(&db);
        let t = std::thread::spawn(move || {
            let _ = tx.send(reader.get("k0001"));
        });
        let got = rx.recv_timeout(Duration::from_secs(30));
        drop(held);
        t.join().unwrap();
        let got = got.expect("the read waited for the drop lock");
        assert_eq!(got.unwrap(), Some(value("a", 1)));
        let during = db.stats().unwrap();
        assert_eq!(during.svtable_searches, stats.svtable_searches + 1);
        assert_eq!(
            during.handle_fixups, stats.handle_fixups,
            "no fix-up while the drop lock is held"
        );
        // With the lock free, the next read of the entry searches again and fixes it.
        assert_eq!(db.get("k0001").unwrap(), Some(value("a", 1)));
        let after = db.stats().unwrap();
        assert_eq!(after.svtable_searches, during.svtable_searches + 1);
        assert_eq!(after.handle_fixups, during.handle_fixups + 1);
    }
}

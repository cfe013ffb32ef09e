//! Offline verification of a database: [`check`], behind `twain check`.
//!
//! Reads every file of a closed database and verifies, without changing anything:
//!
//! - `CURRENT` and the manifest: every edit's checksum, and that the edits apply; a torn
//!   last edit is a note, or a problem when the value log was closed cleanly after it;
//! - every SSTable the manifest names: present, of the recorded size, every block's
//!   checksum, keys strictly ascending and inside the recorded key and sequence ranges,
//!   the entry count of its properties;
//! - every value handle in every table resolves to a separated entry whose checksum, key
//!   and sequence number match;
//! - every value file (sealed ones and the log after the flushed point): every record's
//!   checksum, sealed files' sizes and separated counts against the manifest; a torn tail
//!   of the last one is a note (the next open truncates it), damage elsewhere a problem;
//!   a damaged sealed file is also listed as set aside if value GC would set it aside;
//! - every drop file: every block's checksum, each drop naming a separated entry of its
//!   value file with the right length, and at least as many drops as the manifest counts;
//! - that no live version has every copy named by a counted drop (value GC would discard
//!   it; see `dropped_live`);
//! - the directory against the manifest: files it names must be present; files it does
//!   not name are reported as orphans (the next open removes them); entries that are not
//!   the engine's files (unknown names, a directory named like a table) are listed as
//!   unexpected (open leaves them alone).
//!
//! The database should be closed: a running one changes under the check.

use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::names::{FileType, current_path, file_path};
use crate::format::names::{drop_file_path, value_file_path};
use crate::format::record::{Frame, decode_frame};
use crate::fs::Fs;
use crate::iter::InternalIterator;
use crate::key::{EntryKind, ParsedKey, SeqNo, compare_internal};
use crate::seq_set::{SeqMap, SeqSet};
use crate::table::Table;
use crate::version::{VersionState, read_manifest};
use crate::vlog::{ScanOutcome, ValueFile, read_drop_file};
use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
mod dropped_live;
mod log;
mod report;

use log::{check_log_end, check_sealed_counts, check_value_file};
pub use report::{CheckOptions, CheckReport, Finding};

/// The separated entries found in a value file, by sequence: each copy's offset and length.
/// A version can have two copies in one log (a relocation and a compaction's re-placement
/// of it), stored differently (one compressed, one not).
type Separated = SeqMap<Vec<(u64, u32)>>;

/// Table handles by (key, sequence), each with the table that holds it.
type HandlesByVersion = HashMap<(Vec<u8>, SeqNo), Vec<(ValueHandle, PathBuf)>>;

/// What the value-log scan learned about versions, for resolving table handles later.
#[derive(Default)]
struct LogVersions {
    /// The newest sequence number seen for each key, in the log or in tables.
    newest: HashMap<Vec<u8>, SeqNo>,
    /// Separated records in the value log, by (key, sequence): copies of a record that a
    /// table may also point at (relocated write-backs are replayed from here on open).
    records: HashSet<(Vec<u8>, SeqNo)>,
    /// Range deletions in the value log (not flushed yet): `(start, end, sequence)`.
    ranges: Vec<(Vec<u8>, Vec<u8>, SeqNo)>,
    /// Separated puts after the flushed point that have not expired (by the check's
    /// clock), by (key, sequence): the value files holding them. The next open replays
    /// them into the memtable.
    unflushed: HashMap<(Vec<u8>, SeqNo), Vec<u64>>,
}

impl LogVersions {
    fn saw(&mut self, key: &[u8], seq: SeqNo) {
        let top = self.newest.entry(key.to_vec()).or_insert(seq);
        *top = (*top).max(seq);
    }

    /// Whether a newer version of `key`, or a newer range deletion over it, shadows the
    /// version `seq`.
    fn shadowed(&self, key: &[u8], seq: SeqNo) -> bool {
        self.newest.get(key).is_some_and(|&top| top > seq)
            || self
                .ranges
                .iter()
                .any(|(start, end, t)| start.as_slice() <= key && key < end.as_slice() && *t > seq)
    }
}

/// Receives every entry of a table: user key, sequence, its value handle if it has one,
/// and its expiry time if it has one.
type Resolver<'a> = dyn FnMut(&[u8], SeqNo, Option<&ValueHandle>, Option<u64>) -> Result<()> + 'a;

/// Verifies the database in `dir`; see the module docs for what is checked.
///
/// Returns `Err` only if the check cannot start (no such directory); everything found in
/// the files is in the report.
pub fn check(dir: &Path, opts: &CheckOptions) -> Result<CheckReport> {
    let fs = opts.fs.as_ref();
    if !fs.exists(dir).ctx("stat", dir)? {
        return Err(Error::NotFound(dir.to_path_buf()));
    }
    let mut report = CheckReport::default();
    let listing = crate::db::listing::Listing::read(fs, dir)?;
    report.unexpected = listing
        .unexpected
        .iter()
        .map(|u| Finding {
            file: dir.join(&u.name),
            offset: None,
            what: u.why.to_string(),
        })
        .collect();
    let on_disk: HashSet<(FileType, u64, u32)> = listing
        .files
        .iter()
        .map(|&(_, k, n, e)| (k, n, e))
        .collect();
    let current = current_path(dir);
    if !on_disk.contains(&(FileType::Current, 0, 0)) {
        report.problem(
            &current,
            None,
            "missing: not a database, or CURRENT was lost",
        );
        return Ok(report);
    }
    report.count_file(fs, &current);
    let (state, manifest_number) = match read_manifest(fs, dir, opts.num_levels) {
        Ok(r) => r,
        Err(e) => {
            report.problems.push(Finding::from_error(e, &current));
            return Ok(report);
        }
    };
    let mut logs: Vec<u64> = on_disk
        .iter()
        .filter(|&&(k, n, _)| k == FileType::ValueLog && n >= state.flushed_point.file)
        .map(|&(_, n, _)| n)
        .collect();
    logs.sort_unstable();
    // A damaged value log is reported where it is checked below; here it vouches for nothing.
    let closed_cleanly = crate::vlog::closed_cleanly(fs, dir, &logs).unwrap_or(false);
    check_manifest_frames(fs, dir, manifest_number, closed_cleanly, &mut report);

    // Value files: sealed ones from the manifest (at their current epoch), and the log
    // after the flushed point (epoch 0).
    let flushed = state.flushed_point;
    let mut value_epochs: BTreeMap<u64, u32> = state
        .value_files
        .iter()
        .filter_map(|(&n, f)| f.sealed.map(|s| (n, s.epoch)))
        .collect();
    for &(k, n, _) in &on_disk {
        if k == FileType::ValueLog && n >= flushed.file {
            value_epochs.entry(n).or_insert(0);
        }
    }
    if flushed.file > 0 && !on_disk.contains(&(FileType::ValueLog, flushed.file, 0)) {
        let path = file_path(dir, FileType::ValueLog, flushed.file);
        report.problem(&path, None, "missing: it holds the flushed point");
    }
    let mut versions = LogVersions::default();
    // Expiry is judged as the database would now.
    let now = opts.clock.now_millis();
    let mut log_outcomes: Vec<(u64, ScanOutcome)> = Vec::new();

    let mut separated: BTreeMap<u64, Separated> = BTreeMap::new();
    for (&n, &epoch) in &value_epochs {
        let path = value_file_path(dir, n, epoch);
        let kind = if epoch == 0 {
            FileType::ValueLog
        } else {
            FileType::SvTable
        };
        if !on_disk.contains(&(kind, n, epoch)) {
            report.problem(&path, None, "missing: named by the manifest");
            continue;
        }
        let entries = if epoch == 0 {
            // Unsealed log files (after the flushed point) may end in unsynced bytes.
            let in_log = state.value_files.get(&n).is_none_or(|f| f.sealed.is_none());
            let (entries, outcome) = check_value_file(
                fs,
                &path,
                n,
                in_log,
                (&state, now),
                &mut versions,
                &mut report,
            );
            if in_log && let Some(o) = outcome {
                log_outcomes.push((n, o));
            }
            entries
        } else {
            check_svtable(&opts.fs, dir, &path, n, epoch, &state, &mut report)
        };
        separated.insert(n, entries);
    }
    check_log_end(dir, &state, &log_outcomes, &mut report);
    for (&n, f) in &state.value_files {
        if f.sealed.is_none() && !value_epochs.contains_key(&n) {
            let path = file_path(dir, FileType::ValueLog, n);
            report.problem(&path, None, "missing: the manifest counts drops in it");
        }
    }

    // Drop files, of each value file's current epoch.
    let mut dropped: HashMap<u64, BTreeMap<SeqNo, u32>> = HashMap::new();
    // The drops value GC acts on: those the manifest counts (see `DropIndex::load`).
    let mut counted_drops: HashMap<u64, SeqSet> = HashMap::new();
    for (&n, entries) in &separated {
        let epoch = value_epochs.get(&n).copied().unwrap_or(0);
        let path = drop_file_path(dir, n, epoch);
        let counted = state.value_files.get(&n).map_or(0, |f| f.dropped_count);
        if !on_disk.contains(&(FileType::Drops, n, epoch)) {
            if counted > 0 {
                report.problem(
                    &path,
                    None,
                    format!("missing: the manifest counts {counted} drops"),
                );
            }
            continue;
        }
        report.count_file(fs, &path);
        report.drop_files += 1;
        let mut contents = match read_drop_file(fs, &path, n) {
            Ok(c) => c,
            Err(e) => {
                report.problems.push(Finding::from_error(e, &path));
                continue;
            }
        };
        let set = contents.set.clone();
        contents.keep_counted(counted);
        counted_drops.insert(n, contents.set.into_keys().collect());
        report.drop_records += set.len() as u64;
        // Drops of records inside punched runs name entries the scan skipped: together
        // they must be what the manifest counts as punched.
        let punched = state
            .value_files
            .get(&n)
            .map_or((0, 0), |f| (f.punched_count, f.punched_record_bytes));
        let mut unmatched = Vec::new();
        for (&seq, &len) in &set {
            match entries.get(&seq) {
                Some(copies) if copies.iter().any(|&(_, l)| l == len) => {}
                Some(copies) => {
                    let lens: Vec<String> = copies.iter().map(|c| c.1.to_string()).collect();
                    let has = match lens.len() {
                        1 => "the entry has",
                        _ => "its copies have",
                    };
                    report.problem(
                        &path,
                        None,
                        format!(
                            "drop of sequence {seq} says {len} bytes, {has} {}",
                            lens.join(", ")
                        ),
                    )
                }
                None => unmatched.push((seq, len)),
            }
        }
        let unmatched_bytes: u64 = unmatched.iter().map(|&(_, l)| u64::from(l)).sum();
        if punched != (0, 0) && punched == (unmatched.len() as u64, unmatched_bytes) {
            unmatched.clear();
        }
        for (seq, _) in unmatched {
            report.problem(
                &path,
                None,
                format!("drop of sequence {seq} names no separated entry of value file {n}"),
            );
        }
        let held = set.len() as u64;
        if held < counted {
            report.problem(
                &path,
                None,
                format!("the manifest counts {counted} drops, the file holds {held}"),
            );
        } else if held > counted {
            report.note(
                &path,
                None,
                format!(
                    "{} drops not counted by the manifest (an interrupted flush or compaction)",
                    held - counted
                ),
            );
        }
        dropped.insert(n, set);
    }
    for (&n, &epoch) in &value_epochs {
        let path = value_file_path(dir, n, epoch);
        let sealed = state.value_files.get(&n).and_then(|f| f.sealed);
        let (Some(sealed), true) = (sealed, report.problems.iter().any(|p| p.file == path)) else {
            continue;
        };
        // Value GC acts on the counted drops only.
        let drops = counted_drops.get(&n).cloned();
        let file = ValueFile::with_epoch(Arc::clone(&opts.fs), dir, n, epoch);
        let punched = state.punched.get(&n).map_or(&[][..], Vec::as_slice);
        let found = crate::gc::would_set_aside(fs, &file, punched, sealed.separated_count, drops);
        if let Ok(Some(d)) = found {
            let key = d.key.map(|k| format!("key {}: ", crate::dump::escape(&k)));
            let what = format!("{}{}", key.unwrap_or_default(), d.what);
            report.set_aside.push(Finding {
                file: path,
                offset: Some(d.offset),
                what,
            });
        }
    }

    // Tables; their handles are collected and resolved afterwards.
    let cache = Arc::new(BlockCache::new(0));
    let mut handles = HandlesByVersion::new();
    // Versions the tables hold that have expired by the check's clock.
    let mut expired: HashSet<(Vec<u8>, SeqNo)> = HashSet::new();

    for record in state.levels.iter().flatten() {
        let path = file_path(dir, FileType::Table, record.number);
        if !on_disk.contains(&(FileType::Table, record.number, 0)) {
            report.problem(
                &path,
                None,
                format!("missing: named by the manifest in L{}", record.level),
            );
            continue;
        }
        report.count_file(fs, &path);
        report.tables += 1;
        let mut collect =
            |key: &[u8], seq: SeqNo, h: Option<&ValueHandle>, expires: Option<u64>| -> Result<()> {
                versions.saw(key, seq);
                if expires.is_some_and(|at| at <= now) {
                    expired.insert((key.to_vec(), seq));
                }

                if let Some(h) = h {
                    handles
                        .entry((key.to_vec(), seq))
                        .or_default()
                        .push((*h, path.clone()));
                }
                Ok(())
            };
        match check_table(fs, &path, record, &cache, &mut collect) {
            Ok((entries, _)) => report.table_entries += entries,
            Err(e) => report.problems.push(Finding::from_error(e, &path)),
        }
    }

    // Every record a table points at must be readable through at least one of its copies
    // (the original, lazy fix-ups, relocated write-backs), unless a newer version of the
    // key shadows it: value GC may have rewritten or deleted a shadowed record's file.
    let files: HashMap<u64, ValueFile> = value_epochs
        .iter()
        .map(|(&n, &e)| (n, ValueFile::with_epoch(Arc::clone(&opts.fs), dir, n, e)))
        .collect();
    // Hash layout: a handle naming a segment its group's GC merged away is read in the
    // group's main segment or one of its cold segments, by key and sequence; so is one
    // naming an older epoch of the main segment whose record went to a cold segment.
    let chains = state.hash_chains();
    let chain = |key: &[u8]| -> Vec<&ValueFile> {
        state
            .hash_groups
            .and_then(|groups| chains.get(&crate::hash_layout::group_of(key, groups)))
            .map(|c| c.iter().filter_map(|n| files.get(n)).collect())
            .unwrap_or_default()
    };
    if report.problems.is_empty() {
        dropped_live::find(
            &dropped_live::Inputs {
                dir,
                handles: &handles,
                versions: &versions,
                expired: &expired,
                files: &files,
                counted: &counted_drops,
                held: &separated,
            },
            &mut report,
        );
    } else {
        report.note(
            dir,
            None,
            "live versions were not judged against the counted drops: other problems came first",
        );
    }
    let mut live_dropped = 0u64;
    let mut stale_shadowed = 0u64;
    let mut keys: Vec<_> = handles.into_iter().collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    for ((key, seq), copies) in keys {
        // A checksummed copy of the record in the value log (e.g. relocated by GC).
        let mut resolved = versions.records.contains(&(key.clone(), seq));
        let mut last_err = None;
        for (h, _) in copies.iter().filter(|_| !resolved) {
            let candidates: Vec<&ValueFile> = match files.get(&h.file) {
                Some(vf) if vf.epoch() == h.epoch => vec![vf],
                Some(vf) if vf.epoch() > h.epoch => std::iter::once(vf)
                    .chain(chain(&key).into_iter().filter(|c| c.number() != h.file))
                    .collect(),
                Some(_) => Vec::new(),
                None => chain(&key),
            };
            let mut found = None;
            for vf in candidates {
                let at = if vf.number() == h.file && vf.epoch() == h.epoch {
                    Some(*h)
                } else {
                    match vf.find(&key, seq) {
                        Ok(f) => f,
                        Err(e) => {
                            last_err = Some(e);
                            None
                        }
                    }
                };
                if let Some(at) = at {
                    found = Some((vf, at));
                    break;
                }
            }
            if let Some((vf, fh)) = found {
                match vf.read_value(&fh, &key, seq) {
                    Ok(_) => {
                        resolved = true;
                        let uncounted = |d: &BTreeMap<SeqNo, u32>| {
                            d.contains_key(&seq)
                                && !counted_drops.get(&h.file).is_some_and(|c| c.contains(&seq))
                        };
                        if dropped.get(&h.file).is_some_and(uncounted) {
                            live_dropped += 1;
                        }
                        break;
                    }
                    Err(e) => last_err = Some(e),
                }
            }
        }
        if resolved {
            report.handles_resolved += copies.len() as u64;
            continue;
        }
        if versions.shadowed(&key, seq) {
            stale_shadowed += copies.len() as u64;
            continue;
        }
        let (h, path) = &copies[0];
        match last_err {
            Some(e) => report.problems.push(Finding::from_error(e, path)),
            None => report.problem(
                path,
                None,
                format!(
                    "handle of {} (sequence {seq}) names value file {} epoch {}, which holds no such record",
                    crate::dump::escape(&key),
                    h.file,
                    h.epoch
                ),
            ),
        }
    }
    if live_dropped > 0 {
        report.note(
            dir,
            None,
            format!(
                "{live_dropped} live handles are recorded in drop files (drops of an interrupted flush or compaction)"
            ),
        );
    }
    if stale_shadowed > 0 {
        report.note(
            dir,
            None,
            format!(
                "{stale_shadowed} handles of shadowed versions point at records value GC already reclaimed"
            ),
        );
    }

    // Orphans: what the manifest does not name.
    let tables: BTreeSet<u64> = state.levels.iter().flatten().map(|t| t.number).collect();
    for &(ref name, kind, n, epoch) in &listing.files {
        let orphan = match kind {
            FileType::Table => !tables.contains(&n),
            FileType::ValueLog | FileType::SvTable | FileType::Drops => {
                value_epochs.get(&n) != Some(&epoch)
            }
            FileType::Manifest => n != manifest_number,
            FileType::Temp => true,
            FileType::Current | FileType::Lock | FileType::Identity | FileType::InfoLog => false,
        };
        if orphan {
            report.orphans.push(dir.join(name));
        }
    }
    Ok(report)
}

/// Reads the manifest's frames once more to count edits and judge a torn tail (which
/// `read_manifest` stops at): a note if a crash may have left it (open ignores it), a
/// problem if the value log was `closed_cleanly` after the manifest's last edit (open
/// refuses the database).
fn check_manifest_frames(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    closed_cleanly: bool,
    report: &mut CheckReport,
) {
    let path = file_path(dir, FileType::Manifest, number);
    report.count_file(fs, &path);
    let bytes = match fs
        .open_read(&path)
        .and_then(|f| f.read_vec(0, f.len()? as usize))
    {
        Ok(b) => b,
        Err(e) => return report.problem(&path, None, format!("I/O error during read: {e}")),
    };
    let mut at = crate::format::file_header::FILE_HEADER_LEN;
    while at < bytes.len() {
        match decode_frame(bytes.get(at..).unwrap_or_default()) {
            Frame::Good { frame_len, .. } => {
                report.manifest_edits += 1;
                at += frame_len;
            }
            _ if closed_cleanly => {
                report.problem(
                    &path,
                    Some(at as u64),
                    format!(
                        "the last {} bytes are a damaged or incomplete edit, and the value \
                         log says the database was closed cleanly after its last edit: \
                         acknowledged edits are lost",
                        bytes.len() - at
                    ),
                );
                break;
            }
            _ => {
                report.note(
                    &path,
                    Some(at as u64),
                    format!(
                        "torn tail of {} bytes (an edit never acknowledged; ignored on open)",
                        bytes.len() - at
                    ),
                );
                break;
            }
        }
    }
}

/// Checks one SVTable: footer, index, every entry's checksum, and the manifest's counts.
/// Returns its entries by sequence number.
fn check_svtable(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    path: &Path,
    number: u64,
    epoch: u32,
    state: &VersionState,
    report: &mut CheckReport,
) -> Separated {
    report.count_file(fs.as_ref(), path);
    report.value_files += 1;
    let mut entries = Separated::default();
    let file = ValueFile::with_epoch(Arc::clone(fs), dir, number, epoch);
    let mut throttle = crate::gc::Throttle::new(0);
    let none = SeqSet::default();
    // Punched runs are skipped, as every sequential reader does.
    let punched = match state.value_files.get(&number).and_then(|f| f.sealed) {
        Some(s) if s.epoch == epoch => state.punched.get(&number).map_or(&[][..], Vec::as_slice),
        _ => &[],
    };
    let records =
        match crate::gc::read_records(fs.as_ref(), &file, punched, &mut throttle, &none, false) {
            Ok(scan) if scan.damage.is_empty() => scan.records,
            Ok(scan) => {
                for d in scan.damage {
                    report.problem(path, Some(d.offset), d.what);
                }
                return entries;
            }
            Err(e) => {
                report.problems.push(Finding::from_error(e, path));
                return entries;
            }
        };
    let index = match file.svtable() {
        Ok(i) => i,
        Err(e) => {
            report.problems.push(Finding::from_error(e, path));
            return entries;
        }
    };
    let mut count = 0u64;
    for (_, seq, offset, len) in index.entries(path).unwrap_or_default() {
        entries.entry(seq).or_default().push((offset, len));
        count += 1;
    }
    report.value_records += records.len() as u64;
    report.separated_entries += count;
    let file_len = fs.file_size(path).unwrap_or(0);
    let bytes: u64 = entries.values().flatten().map(|&(_, l)| u64::from(l)).sum();
    check_sealed_counts(state, number, path, (file_len, bytes, count), report);
    entries
}

/// Reads every entry of one table; returns (entries, handles).
fn check_table(
    fs: &dyn Fs,
    path: &Path,
    record: &crate::format::manifest::TableRecord,
    cache: &Arc<BlockCache>,
    resolve: &mut Resolver<'_>,
) -> Result<(u64, u64)> {
    let size = fs.file_size(path).ctx("stat", path)?;
    if size != record.file_size {
        return Err(Error::corruption(
            path,
            size.min(record.file_size),
            format!(
                "file has {size} bytes, the manifest records {}",
                record.file_size
            ),
        ));
    }
    let reader = fs.open_read(path).ctx("open", path)?;
    let table = Arc::new(Table::open(
        record.number,
        path.to_path_buf(),
        reader,
        size,
        Arc::clone(cache),
    )?);
    let mut it = table.iter(false);
    it.seek_to_first()?;
    let (mut entries, mut handles) = (0u64, 0u64);
    let mut prev: Option<Vec<u8>> = None;
    let bad = |what: String| Error::corruption(path, 0, what);
    while it.valid() {
        let key = it.key();
        let p = ParsedKey::parse(key);
        let shown = crate::dump::escape(p.user_key);
        if let Some(prev) = &prev
            && compare_internal(prev, key) != std::cmp::Ordering::Less
        {
            return Err(bad(format!(
                "key {shown} (sequence {}) out of order",
                p.seq
            )));
        }
        if entries == 0 && key != record.smallest.as_slice() {
            return Err(bad(format!(
                "first key {shown} is not the manifest's smallest"
            )));
        }
        if p.seq < record.smallest_seq || p.seq > record.largest_seq {
            return Err(bad(format!(
                "key {shown} has sequence {} outside the manifest's {}..={}",
                p.seq, record.smallest_seq, record.largest_seq
            )));
        }
        match p.entry_kind() {
            Some(EntryKind::Handle) => {
                let (expires, encoded) = crate::key::split_expiry(p.kind, it.value())
                    .map_err(|_| bad(format!("key {shown}: too short for its expiry time")))?;
                let h = ValueHandle::decode(encoded)
                    .map_err(|e| bad(format!("key {shown}: bad value handle: {}", e.what)))?;
                resolve(p.user_key, p.seq, Some(&h), expires)?;
                handles += 1;
            }
            Some(_) => {
                crate::key::split_expiry(p.kind, it.value())
                    .map_err(|_| bad(format!("key {shown}: too short for its expiry time")))?;
                resolve(p.user_key, p.seq, None, None)?
            }
            None => return Err(bad(format!("key {shown} has unknown kind {}", p.kind))),
        }
        entries += 1;
        prev = Some(key.to_vec());
        it.next()?;
    }
    if prev.as_deref() != Some(record.largest.as_slice()) {
        return Err(bad("last key is not the manifest's largest".into()));
    }
    let props = table.properties();
    if props.num_entries != entries || props.num_handles != handles {
        return Err(bad(format!(
            "properties count {} entries and {} handles, the table holds {entries} and {handles}",
            props.num_entries, props.num_handles
        )));
    }
    Ok((entries, handles))
}

//! Repair: rebuilding the manifest of a database from its self-describing files
//! ([`repair`], behind `twain repair`), and the guard that keeps `open` from creating a new
//! database over the files of one whose `CURRENT` or manifest was lost.
//!
//! Repair holds the database's `LOCK` throughout and never deletes a file: anything it
//! cannot use goes into `lost/` inside the database directory, and the report says why.
//!
//! 1. If `CURRENT` names a readable manifest, or the newest manifest in the directory reads
//!    back, and [`check`](fn@crate::check::check) then finds no problem, `CURRENT` is pointed
//!    at it and nothing else changes.
//! 2. Otherwise the manifest is rebuilt:
//!    - every SSTable is read in full; damaged ones go to `lost/`;
//!    - each value file keeps its newest epoch that reads back intact (an SVTable, else
//!      the value log); damaged and superseded epochs go to `lost/`. A value log damaged
//!      after its header is copied whole to `lost/` and cut in place to its intact prefix
//!      (and sealed, unless it is the newest);
//!    - drop files are kept with the epoch they describe (damaged ones, and those of a cut
//!      or superseded file, go to `lost/`: fewer drops only make GC keep more);
//!    - the tables are merged into one sorted run in the deepest level (see `rewrite`),
//!      checking that every value handle reads back;
//!    - the flushed point is the first batch holding a sequence number above every table's
//!      (no older than the flushed point of the newest readable old manifest): no write
//!      missing from the tables is skipped, and replaying the batches between it and the
//!      true flushed point only re-inserts versions no table supersedes;
//!    - a fresh manifest and `CURRENT` are written; the old manifests and the original
//!      tables then go to `lost/`.

mod inventory;
mod lost;
mod report;
mod rewrite;

pub use lost::LOST_DIR;
pub use report::{MAX_LISTED_KEYS, RepairReport, SetAside};

use crate::cache::BlockCache;
use crate::check::{CheckOptions, check};
use crate::error::IoContext;
use crate::format::manifest::{ValueFileOrigin, ValueFileRecord};
use crate::format::names::{
    FileType, current_path, file_path, lock_path, parse_file_name_with_epoch, value_file_path,
};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::options::Options;
use crate::seq_set::SeqSet;
use crate::version::{
    ValueFileState, VersionSet, VersionState, read_manifest, read_manifest_file, write_current,
};
use crate::vlog::{LogPosition, LogWriter, ValueFile};
use crate::{Error, Result};
use inventory::{Inventory, LogScan};
use lost::LostDir;
use rewrite::ValueFiles;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// What an open's error says to do when `CURRENT` or the manifest is lost.
const RUN_REPAIR: &str = "nothing was changed; run `twain repair` (twain::repair) to rebuild \
                          the manifest from the data files";

/// Fails if `dir` holds any file that can hold user data: a table, a value file (log or
/// SVTable) or a drop file. Open calls it before creating a database where `CURRENT` is
/// missing. A manifest alone is allowed: every write goes to a value log first, and a crash
/// while a new database is created leaves a manifest before `CURRENT` (the value log is
/// created after it).
pub(crate) fn refuse_to_create_over_data(fs: &dyn Fs, dir: &Path) -> Result<()> {
    let names = fs.list_dir(dir).ctx("list", dir)?;
    let data: Vec<&String> = names
        .iter()
        .filter(|n| {
            parse_file_name_with_epoch(n).is_some_and(|(kind, _, _)| {
                matches!(
                    kind,
                    FileType::Table | FileType::ValueLog | FileType::SvTable | FileType::Drops
                )
            })
        })
        .collect();
    let Some(first) = data.first() else {
        return Ok(());
    };
    Err(Error::corruption(
        &current_path(dir),
        0,
        format!(
            "CURRENT is missing but the directory holds {} database files ({first}, ...); \
             {RUN_REPAIR}",
            data.len()
        ),
    ))
}

/// Adds the pointer to `twain repair` to an error reading `CURRENT` or the manifest it
/// names. A manifest that is missing becomes corruption naming `CURRENT`.
pub(crate) fn point_to_repair(dir: &Path, e: Error) -> Error {
    match e {
        Error::Corruption { file, offset, what } => Error::Corruption {
            file,
            offset,
            what: format!("{what}; {RUN_REPAIR}"),
        },
        Error::Io { path, source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Error::corruption(
                &current_path(dir),
                0,
                format!(
                    "CURRENT names {}, which is missing; {RUN_REPAIR}",
                    path.display()
                ),
            )
        }
        e => e,
    }
}

/// Repairs the database in `dir` (closed; repair takes its `LOCK`): makes `CURRENT` name a
/// manifest that describes the files present, rebuilding the manifest from the tables,
/// value files and drop files if needed. Files it cannot use are moved into `lost/`, never
/// deleted. `opts` supplies the file system, `num_levels` and the table layout of rewritten
/// tables.
///
/// Errors: [`Error::NotFound`] if `dir` does not exist; [`Error::Locked`] if the database
/// is open; [`Error::Io`] if a file cannot be read, written or moved (the directory is
/// left in a state a second repair can continue from).
pub fn repair(dir: &Path, opts: &Options) -> Result<RepairReport> {
    opts.validate()?;
    let fs = Arc::clone(&opts.fs);
    if !fs.exists(dir).ctx("stat", dir)? {
        return Err(Error::NotFound(dir.to_path_buf()));
    }
    let lock: Arc<dyn crate::fs::FileLock> = Arc::from(fs.lock(&lock_path(dir)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock {
            Error::Locked(dir.to_path_buf())
        } else {
            Error::Io {
                op: "lock",
                path: lock_path(dir),
                source: e,
            }
        }
    })?);
    let names = fs.list_dir(dir).ctx("list", dir)?;
    let inv = Inventory::of(&names);
    let mut lost = LostDir::new(fs.as_ref(), dir);
    if let Some(mut report) = reuse_manifest(&fs, dir, opts, &inv, &mut lost)? {
        report.set_aside = std::mem::take(&mut lost.moved);
        return Ok(report);
    }
    refuse_hash_layout(&fs, dir, &inv)?;
    let mut report = rebuild(&fs, dir, opts, &inv, &mut lost, &lock)?;
    report.set_aside = std::mem::take(&mut lost.moved);
    Ok(report)
}

/// A rebuilt manifest would take a hash-layout database for a log-layout one: its segments
/// for plain SVTables and the handles its group GC forwarded for lost records. Its
/// segments say what they are (footer format version 2), and a rebuild refuses before it
/// changes anything.
fn refuse_hash_layout(fs: &Arc<dyn Fs>, dir: &Path, inv: &Inventory) -> Result<()> {
    for (&n, epochs) in &inv.value_files {
        for &epoch in epochs.iter().filter(|&&e| e > 0) {
            let file = crate::vlog::ValueFile::with_epoch(Arc::clone(fs), dir, n, epoch);
            if file.svtable().is_ok_and(|i| i.footer().segment) {
                return Err(Error::NotSupported(
                    "repair of a hash-layout database without a readable manifest",
                ));
            }
        }
    }
    Ok(())
}

/// Step 1: a manifest that reads back and that `check` accepts is kept.
fn reuse_manifest(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    opts: &Options,
    inv: &Inventory,
    lost: &mut LostDir<'_>,
) -> Result<Option<RepairReport>> {
    let check_opts = CheckOptions {
        fs: Arc::clone(fs),
        num_levels: opts.num_levels,
        clock: Arc::clone(&opts.clock),
    };
    let mut report = RepairReport::default();
    let number = match read_manifest(fs.as_ref(), dir, opts.num_levels) {
        Ok((_, n)) => n,
        Err(e) if e.is_corruption() || is_not_found(&e) => {
            let Some(&newest) = inv.manifests.last() else {
                return Ok(None);
            };
            if read_manifest_file(fs.as_ref(), dir, newest, opts.num_levels).is_err() {
                return Ok(None);
            }
            if inv.current {
                lost.move_aside("CURRENT", format!("unusable: {e}"), true)?;
            }
            write_current(fs.as_ref(), dir, newest)?;
            newest
        }
        Err(e) => return Err(e),
    };
    if !check(dir, &check_opts)?.is_ok() {
        return Ok(None);
    }
    let manifest = file_path(dir, FileType::Manifest, number);
    report.reused_manifest = Some(manifest.clone());
    report.manifest = manifest;
    if lost.moved.is_empty() {
        report
            .notes
            .push("the database was consistent: nothing was changed".to_string());
    }
    Ok(Some(report))
}

fn is_not_found(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

/// A value file the rebuilt database keeps.
struct Kept {
    file: Arc<ValueFile>,
    /// For a value log: what its scan found (after any cut).
    log: Option<LogScan>,
    /// For an SVTable: its record.
    sealed: Option<ValueFileRecord>,
    max_seq: Option<SeqNo>,
    dropped: (u64, u64),
    /// Runs value GC punched out of it, found again.
    holes: inventory::Holes,
}

/// Step 2: the manifest is rebuilt from the files.
fn rebuild(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    opts: &Options,
    inv: &Inventory,
    lost: &mut LostDir<'_>,
    lock: &Arc<dyn crate::fs::FileLock>,
) -> Result<RepairReport> {
    let mut report = RepairReport::default();
    let cache = Arc::new(BlockCache::new(opts.block_cache_size.min(8 << 20)));

    // Old manifests: the newest readable one bounds the flushed point and last sequence
    // from below; all are replaced.
    let mut hint: Option<VersionState> = None;
    for &n in inv.manifests.iter().rev() {
        let (reason, damaged) = match read_manifest_file(fs.as_ref(), dir, n, opts.num_levels) {
            Ok(state) => {
                if hint.is_none() {
                    hint = Some(state);
                }
                ("replaced by the rebuilt manifest".to_string(), false)
            }
            Err(e) => (format!("unreadable: {e}"), true),
        };
        lost.move_aside(&format!("{n:06}.manifest"), reason, damaged)?;
    }
    if fs.exists(&current_path(dir)).ctx("stat", dir)? {
        lost.move_aside("CURRENT", "replaced".to_string(), false)?;
    }
    if let Some(h) = &hint {
        report.missing = missing_files(dir, inv, h);
    }

    // Tables.
    let mut tables = Vec::new();
    for &n in &inv.tables {
        match inventory::check_table(fs.as_ref(), dir, n, &cache) {
            Ok(t) => tables.push(t),
            Err(e) if e.is_corruption() => {
                lost.move_aside(&format!("{n:06}.sst"), e.to_string(), true)?;
            }
            Err(e) => return Err(e),
        }
    }

    // Value files: the newest intact epoch of each.
    let newest_log = inv.newest_log();
    let mut kept: BTreeMap<u64, Kept> = BTreeMap::new();
    let mut cut: Vec<u64> = Vec::new();
    for (&n, epochs) in &inv.value_files {
        for &epoch in epochs.iter().rev() {
            let name = value_file_name(n, epoch);
            if let Some(k) = kept.get(&n) {
                let reason = format!("superseded by epoch {}", k.file.epoch());
                lost.move_aside(&name, reason, false)?;
                continue;
            }
            if epoch > 0 {
                let dropped = svtable_drops(fs.as_ref(), dir, inv, (n, epoch))?;
                match inventory::check_svtable(fs, dir, (n, epoch), dropped.as_ref()) {
                    Ok(s) => {
                        let sealed = ValueFileRecord {
                            number: n,
                            epoch,
                            total_bytes: s.file_size,
                            separated_bytes: s.entry_bytes,
                            separated_count: s.entry_count,
                        };
                        if !s.holes.runs.is_empty() {
                            report.notes.push(format!(
                                "{} has {} dead record(s) that do not read back, taken as \
                                 punched out by value GC",
                                value_file_path(dir, n, epoch).display(),
                                s.holes.records
                            ));
                        }
                        let mut k = kept_file(s.file, None, Some(sealed), s.max_seq);
                        k.holes = s.holes;
                        kept.insert(n, k);
                    }
                    Err(e) if e.is_corruption() => lost.move_aside(&name, e.to_string(), true)?,
                    Err(e) => return Err(e),
                }
                continue;
            }
            let newest = Some(n) == newest_log;
            let mut scan = inventory::scan_log(fs.as_ref(), dir, n, newest)?;
            if let Some((at, what)) = scan.damage.clone() {
                if at <= crate::format::file_header::FILE_HEADER_LEN as u64 {
                    lost.move_aside(&name, format!("damaged at offset {at}: {what}"), true)?;
                    continue;
                }
                let reason = format!("damaged at offset {at}: {what}");
                lost.copy_and_cut(&name, at, reason)?;
                cut.push(n);
                let file = Arc::new(ValueFile::new(Arc::clone(fs), dir, n));
                if !newest {
                    // IMPORTANT: a log file before the newest must end in a seal marker, or
                    // open takes it for one that lost records.
                    let mut w = LogWriter::reopen(fs.as_ref(), Arc::clone(&file), at, 0)?;
                    w.sync_and_mark()?;
                    drop(w.into_sealed());
                }
                scan = LogScan {
                    damage: None,
                    ..inventory::scan_log(fs.as_ref(), dir, n, newest)?
                };
            }
            if !scan.holes.is_empty() {
                report.notes.push(format!(
                    "{} has {} hole(s) of zeroed blocks ({} bytes), stepped over as runs value \
                     GC punched out; a live record inside one would be reported lost below",
                    value_file_path(dir, n, 0).display(),
                    scan.holes.len(),
                    scan.hole_bytes
                ));
            }
            if scan.torn {
                report.notes.push(format!(
                    "{} ends in a torn record at offset {}: the next open truncates it",
                    value_file_path(dir, n, 0).display(),
                    scan.valid_end
                ));
            }
            let file = Arc::new(ValueFile::new(Arc::clone(fs), dir, n));
            let max_seq = scan.max_seq;
            let holes = inventory::Holes {
                runs: scan.holes.clone(),
                punched_bytes: scan.hole_bytes,
                ..inventory::Holes::default()
            };
            let mut k = kept_file(file, Some(scan), None, max_seq);
            k.holes = holes;
            kept.insert(n, k);
        }
    }

    // Drop files go with the epoch they describe.
    let mut dropped: rewrite::DropSets = HashMap::new();
    for (n, epoch, name) in &inv.drops {
        let usable = kept
            .get(n)
            .is_some_and(|k| k.file.epoch() == *epoch && !cut.contains(n));
        if !usable {
            let reason = if cut.contains(n) {
                "its value file was cut at damage"
            } else {
                "no recovered value file has this epoch"
            };
            lost.move_aside(name, reason.to_string(), false)?;
            continue;
        }
        let counts = match inventory::check_drops(fs.as_ref(), dir, name, *n) {
            Ok(c) => c,
            Err(e) if e.is_corruption() => {
                lost.move_aside(name, e.to_string(), true)?;
                continue;
            }
            Err(e) => return Err(e),
        };
        if let Some(k) = kept.get_mut(n) {
            k.dropped = (counts.count, counts.bytes);
            // A log with holes: its drop file also names the records inside them, which
            // its scan could not read. They are the punched records, and count as
            // separated entries of the file too, or it could look dead with live records.
            if let Some(seen) = k.log.as_ref().and_then(|l| l.seen.as_ref()) {
                (k.holes.records, k.holes.record_bytes) =
                    inventory::drops_outside(fs.as_ref(), dir, name, *n, seen)?;
            }
        }
        dropped.insert(*n, counts.seqs);
        report.drop_files.push(dir.join(name));
    }

    // The tables, rewritten.
    let values: ValueFiles = kept
        .iter()
        .map(|(&n, k)| (n, Arc::clone(&k.file)))
        .collect();
    let mut next_number = inv.max_number.max(max_number_in(fs.as_ref(), dir)?) + 1;
    let rewritten = rewrite::rewrite_tables(
        fs,
        dir,
        opts,
        &tables,
        (&values, &dropped),
        &mut next_number,
    )?;
    drop(values);

    // The flushed point and the state.
    let tables_max = rewritten.seqs.map(|(_, hi)| hi);
    let flushed = flushed_point(fs.as_ref(), dir, &kept, tables_max, hint.as_ref())?;
    let mut state = VersionState::empty(opts.num_levels);
    if let Some(level) = state.levels.last_mut() {
        level.clone_from(&rewritten.records);
    }
    state.flushed_point = flushed;
    // `last_sequence` is what the manifest vouches is durable: only what repair found
    // (the old manifest's figure may name records that are gone). Which sequence sits at
    // the rebuilt flushed point is not known: left unset, so the next open does not check
    // the log against it (the next flush records it).
    let mut last_seq = tables_max.unwrap_or(0);
    state.flushed_sequence = None;
    let mut log_seqs: Vec<(u64, Option<SeqNo>, Option<SeqNo>)> = Vec::new();
    for (&n, k) in &kept {
        last_seq = last_seq.max(k.max_seq.unwrap_or(0));
        report.value_files.push(k.file.path().to_path_buf());
        let sealed = match (&k.sealed, &k.log) {
            (Some(s), _) => Some(*s),
            (None, Some(scan)) if n < flushed.file => Some(ValueFileRecord {
                number: n,
                epoch: 0,
                total_bytes: scan.valid_end,
                separated_bytes: scan.separated_bytes + k.holes.record_bytes,
                separated_count: scan.separated_count + k.holes.records,
            }),
            (None, Some(scan)) => {
                log_seqs.push((n, scan.first_seq, scan.max_seq));
                None
            }
            (None, None) => None,
        };
        if let Some(s) = sealed {
            // The holes become punched runs again, so every scanner skips them; the
            // records inside them count as separated, dropped and punched, as after GC
            // punched them.
            let h = &k.holes;
            state.value_files.insert(
                n,
                ValueFileState {
                    sealed: Some(s),
                    dropped_count: k.dropped.0,
                    dropped_bytes: k.dropped.1,
                    punched_count: h.records,
                    punched_record_bytes: h.record_bytes,
                    punched_bytes: h.punched_bytes,
                    // A rebuilt manifest cannot tell a flush's transient file from a
                    // rewritten log: taken as a log's, GC may collect it and automatic
                    // compactions leave its handles separated (`twain compact` merges them).
                    origin: ValueFileOrigin::Log,
                    group: 0,
                    cold: false,
                },
            );
            if !h.runs.is_empty() {
                state.punched.insert(n, h.runs.clone());
            }
        } else if !k.holes.runs.is_empty() {
            report.notes.push(format!(
                "{} has holes but lies after the flushed point: opening it will report them",
                value_file_path(dir, n, 0).display()
            ));
        }
    }
    note_sequence_gaps(&mut report, &log_seqs, tables_max);
    state.last_sequence = last_seq;
    state.next_file_number = next_number;

    // IMPORTANT: writes the manifest and CURRENT, synced, before the original tables leave
    // the directory: a crash before this leaves a directory a second repair rebuilds again.
    let versions = VersionSet::open(
        Arc::clone(fs),
        dir,
        Arc::clone(&cache),
        state,
        &[],
        Arc::clone(lock),
    )?;
    report.manifest = file_path(dir, FileType::Manifest, versions.manifest_number());
    drop(versions);
    for t in &tables {
        let name = format!("{:06}.sst", t.number());
        report.tables_recovered.push(t.path().to_path_buf());
        lost.move_aside(&name, "rewritten into the new tables".to_string(), false)?;
    }

    report.tables_written = rewritten.paths;
    report.entries = rewritten.entries;
    report.table_seqs = rewritten.seqs;
    report.lost_entries = rewritten.lost_entries;
    report.lost_keys = rewritten.lost_keys;
    report.shadowed_dropped = rewritten.shadowed_dropped;
    report.last_sequence = last_seq;
    report.flushed_point = (flushed.file, flushed.offset);
    Ok(report)
}

/// The files `state` names that `inv` does not hold.
fn missing_files(dir: &Path, inv: &Inventory, state: &VersionState) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for t in state.levels.iter().flatten() {
        if !inv.tables.contains(&t.number) {
            out.push(file_path(dir, FileType::Table, t.number));
        }
    }
    for (&n, f) in &state.value_files {
        let Some(sealed) = f.sealed else { continue };
        let present = inv
            .value_files
            .get(&n)
            .is_some_and(|epochs| epochs.contains(&sealed.epoch));
        if !present {
            out.push(value_file_path(dir, n, sealed.epoch));
        }
    }
    let flushed = state.flushed_point.file;
    if flushed > 0
        && !inv
            .value_files
            .get(&flushed)
            .is_some_and(|epochs| epochs.contains(&0))
    {
        out.push(value_file_path(dir, flushed, 0));
    }
    out
}

fn kept_file(
    file: Arc<ValueFile>,
    log: Option<LogScan>,
    sealed: Option<ValueFileRecord>,
    max_seq: Option<SeqNo>,
) -> Kept {
    Kept {
        file,
        log,
        sealed,
        max_seq,
        dropped: (0, 0),
        holes: inventory::Holes::default(),
    }
}

/// The dead sequence numbers of SVTable `(number, epoch)` per its drop file, if it has a
/// readable one.
fn svtable_drops(
    fs: &dyn Fs,
    dir: &Path,
    inv: &Inventory,
    (number, epoch): (u64, u32),
) -> Result<Option<SeqSet>> {
    let Some((_, _, name)) = inv
        .drops
        .iter()
        .find(|(n, e, _)| (*n, *e) == (number, epoch))
    else {
        return Ok(None);
    };
    match inventory::check_drops(fs, dir, name, number) {
        Ok(c) => Ok(Some(c.seqs)),
        Err(e) if e.is_corruption() => Ok(None),
        Err(e) => Err(e),
    }
}

fn value_file_name(number: u64, epoch: u32) -> String {
    match epoch {
        0 => format!("{number:06}.vlog"),
        e => format!("{number:06}-{e}.svt"),
    }
}

/// The largest file number in `lost/` (so new files never reuse a set-aside file's name).
fn max_number_in(fs: &dyn Fs, dir: &Path) -> Result<u64> {
    let lost = dir.join(LOST_DIR);
    if !fs.exists(&lost).ctx("stat", &lost)? {
        return Ok(0);
    }
    let names = fs.list_dir(&lost).ctx("list", &lost)?;
    Ok(names
        .iter()
        .filter_map(|n| parse_file_name_with_epoch(n))
        .map(|(_, n, _)| n)
        .max()
        .unwrap_or(0))
}

/// The first batch of the oldest value log that holds a sequence number above `tables_max`
/// (every write up to `tables_max` reached a table: memtables flush in sequence order), or
/// the end of the newest log if none does; never before the old manifest's flushed point
/// when that file is still here.
fn flushed_point(
    fs: &dyn Fs,
    dir: &Path,
    kept: &BTreeMap<u64, Kept>,
    tables_max: Option<SeqNo>,
    hint: Option<&VersionState>,
) -> Result<LogPosition> {
    let logs: Vec<(u64, &LogScan)> = kept
        .iter()
        .filter_map(|(&n, k)| k.log.as_ref().map(|s| (n, s)))
        .collect();
    // The newest log with an intact record: a newest log whose header did not survive is
    // removed by the next open, so the flushed point must not name it.
    let header = crate::format::file_header::FILE_HEADER_LEN as u64;
    let Some(&(last, last_scan)) = logs.iter().rev().find(|(_, s)| s.valid_end > header) else {
        return Ok(LogPosition::default());
    };
    let above = |s: &LogScan| match (s.max_seq, tables_max) {
        (Some(m), Some(t)) => m > t,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let mut point = match logs.iter().find(|(_, s)| above(s)) {
        Some(&(n, s)) => LogPosition {
            file: n,
            offset: match tables_max {
                Some(t) => inventory::first_batch_after(fs, dir, n, t, (s.valid_end, &s.holes))?,
                None => header,
            },
        },
        // Before a trailing marker: the open removes a clean close's marker and writing
        // continues where it began, so a point past it would fall inside the next record.
        None => LogPosition {
            file: last,
            offset: if last_scan.ends_with_marker {
                last_scan.valid_end - crate::vlog::MARKER_FRAME_LEN
            } else {
                last_scan.valid_end
            },
        },
    };
    if let Some(h) = hint {
        let old = h.flushed_point;
        let present = logs
            .iter()
            .any(|&(n, s)| n == old.file && old.offset <= s.valid_end);
        if present && old > point {
            point = old;
        }
    }
    Ok(point)
}

/// Notes where consecutive replayed log files do not continue each other's sequence
/// numbers: records between them are missing (a value file was lost, or deleted as dead
/// before the flushed point).
fn note_sequence_gaps(
    report: &mut RepairReport,
    logs: &[(u64, Option<SeqNo>, Option<SeqNo>)],
    tables_max: Option<SeqNo>,
) {
    let mut prev: Option<(u64, SeqNo)> = None;
    for &(n, first, max) in logs {
        if let (Some((pn, pmax)), Some(first)) = (prev, first)
            && first > pmax + 1
            && first > tables_max.unwrap_or(0) + 1
        {
            report.notes.push(format!(
                "sequence numbers {}..{} are in no value log between files {pn} and {n}",
                pmax + 1,
                first - 1
            ));
        }
        if let Some(m) = max {
            prev = Some((n, m));
        }
    }
}

//! Opening a database: recovery from the manifest and the value log.
//!
//! 1. Read the manifest named by `CURRENT` (an empty state for a new database).
//! 2. Replay every value file from the flushed point on into memtables, counting each
//!    file's separated bytes; a torn tail of the last file is truncated (and synced).
//! 3. Write a fresh manifest holding a snapshot, point `CURRENT` at it.
//! 4. Remove files no version names (crashed flushes and compactions, dead value files,
//!    old manifests, temporary files).
//! 5. Continue the last value file if it has room, else start a new one.
//!
//! A read-only open ([`super::Db::open_read_only`], or a normal open whose file system
//! refuses to open `LOCK` for writing) takes no lock and writes nothing: a torn tail is
//! ignored in memory, steps 3-5 are skipped, and no background thread starts.
//!
//! Directory entries that are not the engine's files ([`Listing`]) are never read nor
//! removed; the database reports them ([`super::Db::unexpected_entries`]).

use super::background::{self, Background};
use super::listing::Listing;
use super::write::{WritePath, WriteState};
use super::{DbInner, SuperVersion};
use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::identity;
use crate::format::manifest::VersionEdit;
use crate::format::names::{
    FileType, current_path, file_path, lock_path, parse_current, value_file_path,
};
use crate::format::record::FRAME_HEADER_LEN;
use crate::format::vlog::LogEntryKind;
use crate::fs::{FileLock, Fs};
use crate::key::{EntryKind, SeqNo, append_expiring_value, internal_key, put_kind};
use crate::memtable::Memtable;
use crate::options::{Options, ValueLayout};
use crate::stats::Counters;
use crate::version::{TornTail, VersionSet, VersionState, read_manifest_with_tail};
use crate::vlog::{
    DropIndex, LogPosition, LogSync, LogWriter, MARKER_FRAME_LEN, ValueFile, scan_value_file,
};
use crate::{Error, Result};
use arc_swap::ArcSwap;
use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

/// What replaying the value log produced.
struct Replayed {
    /// Frozen memtables, oldest first.
    frozen: Vec<Arc<Memtable>>,
    /// The memtable holding the tail of the log.
    mem: Arc<Memtable>,
    /// The log files, oldest first, with their counters set.
    logs: Vec<Arc<ValueFile>>,
    /// The largest sequence number seen.
    max_seq: SeqNo,
    /// Bytes of torn tail truncated.
    torn_bytes: u64,
    /// Whether the last log file is complete: it ends in a seal record (the writer had
    /// left it) or a close marker (a clean close). Writing never continues after either:
    /// a crash that cut a continued file right after its marker would make the cut look
    /// like a complete file.
    last_complete: bool,
}

/// Opens the database in `dir` read-only. Another process may be writing it meanwhile:
/// if the open fails on a missing or damaged file while the manifest changed under it (a
/// flush, compaction or GC of that writer deleted what it had just read about), it retries,
/// up to `ATTEMPTS` times, waiting a little longer before each (a writer that changes its
/// files faster than an open reads them, as on a loaded machine, gets a gap to fall into).
pub(crate) fn open_read_only(dir: &Path, opts: Options) -> Result<Arc<DbInner>> {
    const ATTEMPTS: u32 = 20;
    let fs = Arc::clone(&opts.fs);
    let mut attempt = 1;
    loop {
        let before = manifest_mark(fs.as_ref(), dir);
        match open(dir, opts.clone(), true) {
            Err(e)
                if attempt < ATTEMPTS
                    && changing_files(&e)
                    && manifest_mark(fs.as_ref(), dir) != before =>
            {
                std::thread::sleep(std::time::Duration::from_millis(u64::from(attempt.min(10))));
                attempt += 1;
            }
            result => return result,
        }
    }
}

/// Whether `e` is what a writer's deletion or rewrite of a file under a read-only open
/// looks like.
fn changing_files(e: &Error) -> bool {
    match e {
        Error::Corruption { .. } => true,
        Error::Io { source, .. } => source.kind() == io::ErrorKind::NotFound,
        _ => false,
    }
}

/// What `CURRENT` says and how long the manifest it names is: it changes with every
/// manifest write, before the writer deletes any file.
fn manifest_mark(fs: &dyn Fs, dir: &Path) -> Option<(Vec<u8>, u64)> {
    let current = fs
        .open_read(&current_path(dir))
        .and_then(|f| f.read_vec(0, f.len()?.min(64) as usize))
        .ok()?;
    let number = parse_current(&current)?;
    let len = fs
        .file_size(&file_path(dir, FileType::Manifest, number))
        .ok()?;
    Some((current, len))
}

/// Refuses a writable open in a GC mode that trusts drop records (`GcMode::records_drops`)
/// of a database that ran in vlog mode: its flushes and compactions left drops
/// unrecorded, so those modes would take dead records for live ones, for good.
fn refuse_untracked_drops(state: &VersionState, opts: &Options, read_only: bool) -> Result<()> {
    if read_only || !state.drops_untracked || !opts.gc_mode.records_drops() {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "option gc_mode: this database ran with gc_mode=vlog, which records no drops; \
         opening it with gc_mode={} is not supported yet (open it with gc_mode=vlog)",
        opts.gc_mode.as_str()
    )))
}

/// Opens the database in `dir`; with `read_only`, without writing a byte.
pub(crate) fn open(dir: &Path, opts: Options, read_only: bool) -> Result<Arc<DbInner>> {
    opts.validate()?;
    let fs = Arc::clone(&opts.fs);
    if !fs.exists(dir).ctx("stat", dir)? {
        if read_only || !opts.create_if_missing {
            return Err(Error::NotFound(dir.to_path_buf()));
        }
        fs.create_dir_all(dir).ctx("create directory", dir)?;
    }
    let lock_existed = read_only || fs.exists(&lock_path(dir)).ctx("stat", dir)?;
    // `refused`: the file system refused the lock file, so the open goes on read-only.
    let (lock, refused) = if read_only {
        (None, None)
    } else {
        match take_lock(fs.as_ref(), dir)? {
            Ok(lock) => (Some(lock), None),
            Err(e) => (None, Some(e)),
        }
    };
    let read_only = match (&refused, read_only) {
        (Some(e), _) => Some(format!(
            "opened read-only: the file system refused to open {} for writing ({e})",
            lock_path(dir).display()
        )),
        (None, true) => Some("opened read-only (Db::open_read_only)".to_string()),
        (None, false) => None,
    };
    let exists = fs.exists(&current_path(dir)).ctx("stat", dir)?;
    if exists && opts.error_if_exists {
        return Err(Error::AlreadyExists(dir.to_path_buf()));
    }
    if !exists {
        if let Some(source) = refused {
            return Err(Error::Io {
                op: "lock",
                path: lock_path(dir),
                source,
            });
        }
        // IMPORTANT: a new database is never created over another one's files (a lost
        // CURRENT would make them orphans, and orphans are removed below).
        let refusal = match crate::repair::refuse_to_create_over_data(fs.as_ref(), dir) {
            Err(e) => Some(e),
            Ok(()) => (read_only.is_some() || !opts.create_if_missing)
                .then(|| Error::NotFound(dir.to_path_buf())),
        };
        if let Some(e) = refusal {
            // An open that finds no database leaves no trace: not even its lock file.
            drop(lock);
            if !lock_existed {
                let _ = fs.remove_file(&lock_path(dir));
            }
            return Err(e);
        }
    }
    let (mut state, manifest_number, torn) = if exists {
        read_manifest_with_tail(fs.as_ref(), dir, opts.num_levels)
            .map_err(|e| crate::repair::point_to_repair(dir, e))?
    } else {
        let mut state = VersionState::empty(opts.num_levels);
        if opts.value_layout == ValueLayout::Hash {
            // Recorded by the new database's first manifest (its snapshot of the state).
            state.hash_groups = Some(opts.hash_groups);
        }
        (state, 0, None)
    };
    refuse_untracked_drops(&state, &opts, read_only.is_some())?;
    // The layout is the database's, chosen at its creation; the options follow it (and were
    // checked above as given, so options the asked-for layout refuses are refused even
    // where the database's layout would take them).
    let mut opts = opts;
    match state.hash_groups {
        Some(groups) => {
            opts.value_layout = ValueLayout::Hash;
            opts.hash_groups = groups;
            // Value files are only the write-ahead log here, all garbage once flushed:
            // rolling it at the memtable's size keeps that garbage to about one memtable.
            opts.value_file_size = opts.value_file_size.min(opts.memtable_size as u64);
        }
        None => opts.value_layout = ValueLayout::Log,
    }
    opts.validate()?;

    let listing = Listing::read(fs.as_ref(), dir)?;
    let parsed: Vec<(FileType, u64, u32)> = listing
        .files
        .iter()
        .map(|&(_, k, n, e)| (k, n, e))
        .collect();
    let on_disk: HashSet<(FileType, u64, u32)> = parsed.iter().copied().collect();
    // A file the manifest names that is gone, with the manifest's torn tail if it has one:
    // edits before a torn write never delete what the version before them names (a file
    // goes only once the edit that drops it is durable), so the tail held acknowledged
    // edits, and the manifest is what is damaged.
    let missing = |path: PathBuf, offset: u64, what: &str| -> Error {
        match &torn {
            Some(t) => crate::repair::point_to_repair(
                dir,
                t.corruption(format_args!(
                    "the version before it names {}, which is gone",
                    path.display()
                )),
            ),
            None => Error::corruption(&path, offset, what),
        }
    };
    for table in state.levels.iter().flatten() {
        if !on_disk.contains(&(FileType::Table, table.number, 0)) {
            let path = file_path(dir, FileType::Table, table.number);
            return Err(missing(path, 0, "table named by the manifest is missing"));
        }
    }
    for (&n, f) in &state.value_files {
        let Some(sealed) = f.sealed else { continue };
        let kind = if sealed.epoch == 0 {
            FileType::ValueLog
        } else {
            FileType::SvTable
        };
        let path = value_file_path(dir, n, sealed.epoch);
        if !on_disk.contains(&(kind, n, sealed.epoch)) {
            return Err(missing(
                path,
                0,
                "value file named by the manifest is missing",
            ));
        }
        let size = fs.file_size(&path).ctx("stat", &path)?;
        if size != sealed.total_bytes {
            return Err(Error::corruption(
                &path,
                size.min(sealed.total_bytes),
                format!(
                    "value file has {size} bytes, the manifest records {}",
                    sealed.total_bytes
                ),
            ));
        }
    }

    let flushed = state.flushed_point;
    if flushed.file > 0 && !on_disk.contains(&(FileType::ValueLog, flushed.file, 0)) {
        return Err(missing(
            file_path(dir, FileType::ValueLog, flushed.file),
            flushed.offset,
            "the value file holding the flushed point is missing",
        ));
    }
    let mut log_numbers: Vec<u64> = parsed
        .iter()
        .filter(|(k, n, _)| *k == FileType::ValueLog && *n >= flushed.file)
        .map(|&(_, n, _)| n)
        .collect();
    log_numbers.sort_unstable();
    if let Some(t) = &torn {
        judge_torn_manifest(
            fs.as_ref(),
            dir,
            opts.num_levels,
            t,
            &log_numbers,
            read_only.is_some(),
        )
        .map_err(|e| crate::repair::point_to_repair(dir, e))?;
    }
    let max_number = parsed.iter().map(|&(_, n, _)| n).max().unwrap_or(0);
    state.next_file_number = state.next_file_number.max(max_number + 1);

    let replayed = replay(&fs, dir, &opts, &log_numbers, flushed, read_only.is_some())?;
    if let Some(flushed_seq) = state.flushed_sequence
        && state.last_sequence > replayed.max_seq.max(flushed_seq)
    {
        let (path, offset) = match replayed.logs.last() {
            Some(f) => (f.path().to_path_buf(), f.total_bytes()),
            None => (
                file_path(dir, FileType::ValueLog, flushed.file),
                flushed.offset,
            ),
        };
        return Err(Error::corruption(
            &path,
            offset,
            format!(
                "the value log ends at sequence {}, below sequence {} that the manifest \
                 records as durable: records are missing (a value file deleted or truncated)",
                replayed.max_seq.max(flushed_seq),
                state.last_sequence
            ),
        ));
    }
    for f in &replayed.logs {
        state.value_files.entry(f.number()).or_default();
    }
    let last_seq = replayed.max_seq.max(state.last_sequence);
    state.last_sequence = last_seq;

    // The drop files are the truth about dead records, up to what the manifest counts:
    // blocks appended by a flush or compaction whose edit never landed are cut off (the
    // work is redone; a placement merge's drops name records tables still point at).
    // Logs the manifest has no entry for (no drop counted yet) are loaded too, with nothing
    // counted: a drop file of theirs holds only blocks of interrupted work.
    let uncounted_logs: Vec<u64> = replayed
        .logs
        .iter()
        .map(|f| f.number())
        .filter(|n| !state.value_files.contains_key(n))
        .collect();
    let drop_index = DropIndex::load(
        fs.as_ref(),
        dir,
        state
            .value_files
            .iter()
            .map(|(&n, f)| (n, f.sealed.map_or(0, |s| s.epoch), f.dropped_count))
            .chain(uncounted_logs.into_iter().map(|n| (n, 0, 0))),
        read_only.is_none(),
    )?;
    for (n, drops) in drop_index.lock().iter() {
        if let Some(f) = state.value_files.get_mut(n) {
            f.dropped_count = drops.seqs.len() as u64;
            f.dropped_bytes = drops.bytes;
        }
    }

    let cache = Arc::new(BlockCache::new(opts.block_cache_size));
    let (versions, log) = match &lock {
        None => {
            let versions = VersionSet::open_read_only(
                Arc::clone(&fs),
                dir,
                Arc::clone(&cache),
                state,
                &replayed.logs,
                manifest_number,
            )?;
            let file = match replayed.logs.last() {
                Some(f) => Arc::clone(f),
                None => Arc::new(ValueFile::new(Arc::clone(&fs), dir, 0)),
            };
            (versions, LogWriter::refusing(file))
        }
        Some(lock) => {
            let mut versions = VersionSet::open(
                Arc::clone(&fs),
                dir,
                Arc::clone(&cache),
                state,
                &replayed.logs,
                Arc::clone(lock),
            )?;
            remove_orphans(fs.as_ref(), dir, &listing, &versions)?;
            if !opts.gc_mode.records_drops() && !versions.current().state.drops_untracked {
                // IMPORTANT: durable before any flush or compaction leaves a drop out.
                versions.log_and_apply(VersionEdit {
                    drops_untracked: true,
                    ..VersionEdit::default()
                })?;
            }
            let log = start_log(
                &fs,
                dir,
                &opts,
                &mut versions,
                replayed.logs.last(),
                replayed.last_complete,
            )?;
            (versions, log)
        }
    };
    // A writable open gives a database without an identity its identity (a worker checks
    // it before taking a compaction part: `compaction::worker`).
    let identity = match read_only {
        None => Some(identity::ensure_identity(fs.as_ref(), dir)?),
        Some(_) => identity::read_identity(fs.as_ref(), dir).ok().flatten(),
    };
    let log_sync = LogSync::default();
    if read_only.is_none() {
        let active_path = log.value_file().path().to_path_buf();
        log_sync.set_active(
            Arc::clone(log.value_file()),
            fs.open_append(&active_path).ctx("open", &active_path)?,
        );
    }
    let version = Arc::clone(versions.current());
    let mut imms = replayed.frozen;
    imms.reverse();
    let sv = SuperVersion {
        mem: Arc::clone(&replayed.mem),
        imms,
        version,
    };
    let inner = Arc::new(DbInner {
        dir: dir.to_path_buf(),
        fs,
        cache,
        versions: Mutex::new(versions),
        super_version: ArcSwap::from_pointee(sv),
        sv_lock: Mutex::new(()),
        write: WritePath::new(WriteState::new(log, replayed.mem, last_seq + 1)),
        visible_seq: AtomicU64::new(last_seq),
        snapshots: Mutex::new(BTreeMap::new()),
        bg: Background::default(),
        bg_error: Mutex::new(None),
        has_bg_error: AtomicBool::new(false),
        log_limit: AtomicU64::new(u64::MAX),
        iterator_reads: AtomicU64::new(0),
        counters: Arc::new(Counters::default()),
        drop_index,
        gc_lock: Mutex::new(()),
        gc_closing: Default::default(),
        manual_gcs: AtomicU64::new(0),
        log_sync,
        live_cache: Default::default(),
        gc_tallies: Default::default(),
        fixups_paused: Default::default(),
        manual_compactions: Default::default(),
        gc_set_aside: Default::default(),
        hash_pool: Default::default(),
        gc_punch: Default::default(),
        lock,
        read_only: read_only.clone(),
        identity,
        unexpected: listing
            .unexpected
            .iter()
            .map(|u| dir.join(&u.name))
            .collect(),
        prefetch: super::prefetch::PrefetchPool::new(
            opts.prefetch_threads,
            std::time::Duration::from_micros(opts.prefetch_min_read_micros),
            opts.mmap_reads,
        ),
        offload: Default::default(),
        // A read-only open never writes a byte, its LOG file neither.
        events: crate::event_log::EventLog::open(
            Arc::clone(&opts.fs),
            dir,
            opts.info_log && read_only.is_none(),
        ),
        opts,
    });
    Counters::add(&inner.counters.recovered_torn_bytes, replayed.torn_bytes);
    // Every manifest edit from now on records the cumulative counters.
    super::lock(&inner.versions).attach_counters(Arc::clone(&inner.counters));
    match read_only {
        // IMPORTANT: the read-only state is the background-error state, which every
        // write path checks first; no background thread runs.
        Some(reason) => {
            inner.set_bg_error_message(reason);
        }
        None => background::start(&inner)?,
    }
    let version = Arc::clone(&inner.super_version().version);
    crate::event_log::event!(
        inner.events,
        Info,
        "opened{}: {} tables, {} value files, last sequence {}, {} bytes of torn log tail dropped",
        if inner.read_only.is_some() {
            " read-only"
        } else {
            ""
        },
        version.levels.iter().map(Vec::len).sum::<usize>(),
        version.value_files.len(),
        inner.visible_seq.load(std::sync::atomic::Ordering::Acquire),
        replayed.torn_bytes
    );
    Ok(inner)
}

/// Takes the lock on `dir`. `Ok(Err(e))`: the file system refused to open the lock file for
/// writing (a read-only mount, no permission), so the database can only be read.
fn take_lock(fs: &dyn Fs, dir: &Path) -> Result<io::Result<Arc<dyn FileLock>>> {
    let path = lock_path(dir);
    match fs.lock(&path) {
        Ok(lock) => Ok(Ok(Arc::from(lock))),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(Error::Locked(dir.to_path_buf())),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::ReadOnlyFilesystem | io::ErrorKind::PermissionDenied
            ) =>
        {
            Ok(Err(e))
        }
        Err(source) => Err(Error::Io {
            op: "lock",
            path,
            source,
        }),
    }
}

/// The writer of the active value file: continues the last one if it has room, else
/// seals it and starts a new one.
fn start_log(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    opts: &Options,
    versions: &mut VersionSet,
    last: Option<&Arc<ValueFile>>,
    last_complete: bool,
) -> Result<LogWriter> {
    if let Some(f) = last
        && f.total_bytes() < opts.value_file_size
        && !last_complete
    {
        return LogWriter::reopen(
            fs.as_ref(),
            Arc::clone(f),
            f.total_bytes(),
            opts.log_buffer_size,
        );
    }
    let number = versions.new_file_number();
    let file = Arc::new(ValueFile::new(Arc::clone(fs), dir, number));
    let log = LogWriter::create(fs.as_ref(), dir, Arc::clone(&file), opts.log_buffer_size)?;
    if let Some(full) = last.filter(|_| !last_complete) {
        // IMPORTANT: the full last file becomes a sealed one; seal it as a roll would,
        // durably, naming the next file — which is durable already, so a seal never names
        // a file a crash can lose.
        let mut sealing = LogWriter::reopen(fs.as_ref(), Arc::clone(full), full.total_bytes(), 0)?;
        sealing.seal(number)?;
        sealing.sync_and_mark()?;
        drop(sealing.into_sealed());
    }
    versions.add_log_file(file)?;
    Ok(log)
}

/// Replays log files `numbers` (ascending, all at or after the flushed point).
///
/// Syncs go in file order and a sealed file is synced in the background, so after a crash
/// the log may end in any file: the first file that the writer did not leave complete (no
/// seal record or close marker) ends it, unless a later file holds a record written after a
/// sync — which proves the earlier files were durable in full, so their damage is
/// corruption. Files after the end held only unsynced records: they are removed. Every file
/// kept is synced, so the last sequence recovered is durable before a manifest records it.
fn replay(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    opts: &Options,
    numbers: &[u64],
    flushed: LogPosition,
    read_only: bool,
) -> Result<Replayed> {
    let mut out = Replayed {
        frozen: Vec::new(),
        mem: Arc::new(Memtable::new(1)),
        logs: Vec::new(),
        max_seq: 0,
        torn_bytes: 0,
        last_complete: false,
    };
    let mut next_mem_id = 2;
    let mut expected_next: Option<(u64, u64)> = None;
    for (i, &number) in numbers.iter().enumerate() {
        let is_last = i + 1 == numbers.len();
        let file = Arc::new(ValueFile::new(Arc::clone(fs), dir, number));
        let path = file.path().to_path_buf();
        if let Some((sealed, next)) = expected_next
            && number != next
        {
            // A file between a seal and the file it names was never written to; anything
            // else in that gap is damage.
            let stray = scan_value_file(fs.as_ref(), &path, number, true, |_, _, _| Ok(()))?;
            if stray.max_seq.is_some() {
                return Err(Error::corruption(
                    &path,
                    0,
                    format!("value file {sealed} continues in {next}, but {number} holds records"),
                ));
            }
            continue;
        }
        let start = if number == flushed.file {
            flushed.offset
        } else {
            0
        };
        let (mut sep_count, mut sep_bytes) = (0u64, 0u64);
        let mut key_buf = Vec::new();
        let outcome = scan_value_file(fs.as_ref(), &path, number, true, |at, len, reader| {
            if at < start && start < at + len {
                return Err(Error::corruption(
                    &path,
                    at,
                    format!("the flushed point at offset {start} lies inside this record"),
                ));
            }
            let payload_at = at + FRAME_HEADER_LEN as u64;
            while let Some(e) = reader
                .next_entry()
                .map_err(|e| e.into_corruption(&path, payload_at))?
            {
                if e.kind == LogEntryKind::Separated {
                    sep_count += 1;
                    sep_bytes += e.len as u64;
                }
                out.max_seq = out.max_seq.max(e.seq);
                if at < start {
                    continue;
                }
                key_buf.clear();
                match e.kind {
                    LogEntryKind::Delete => {
                        out.mem
                            .insert(&internal_key(e.key, e.seq, EntryKind::Delete as u8), &[]);
                    }
                    LogEntryKind::RangeDelete => out.mem.delete_range(e.key, e.value, e.seq),
                    LogEntryKind::Inline => {
                        append_expiring_value(&mut key_buf, e.expires_at, e.value);
                        let kind = put_kind(EntryKind::Inline, e.expires_at);
                        out.mem.insert(&internal_key(e.key, e.seq, kind), &key_buf);
                    }
                    LogEntryKind::Separated => {
                        append_expiring_value(&mut key_buf, e.expires_at, &[]);
                        ValueHandle {
                            file: number,
                            epoch: 0,
                            offset: payload_at + e.offset as u64,
                            len: e.len as u32,
                        }
                        .encode_to(&mut key_buf);
                        let kind = put_kind(EntryKind::Handle, e.expires_at);
                        out.mem.insert(&internal_key(e.key, e.seq, kind), &key_buf);
                    }
                }
            }
            if at >= start
                && (out.mem.approximate_bytes() >= opts.memtable_size
                    || out.mem.range_deletion_count() >= crate::memtable::MAX_RANGE_DELETIONS)
            {
                out.mem.freeze(
                    LogPosition {
                        file: number,
                        offset: at + len,
                    },
                    out.max_seq,
                );
                let full = std::mem::replace(&mut out.mem, Arc::new(Memtable::new(next_mem_id)));
                next_mem_id += 1;
                out.frozen.push(full);
            }
            Ok(())
        })?;
        if outcome.valid_end == 0
            && let Some((sealed, _)) = expected_next
        {
            // The seal of the file before it was written after this file was durable.
            return Err(Error::corruption(
                &path,
                0,
                format!("value file {sealed} continues in this file, whose header is damaged"),
            ));
        }
        if outcome.valid_end < start {
            return Err(Error::corruption(
                &path,
                outcome.valid_end,
                format!("value log ends before the flushed point at offset {start}"),
            ));
        }
        let log_ends_here = !is_last && !outcome.is_complete();
        if log_ends_here {
            for &later in &numbers[i + 1..] {
                let later_path = value_file_path(dir, later, 0);
                let seen =
                    scan_value_file(fs.as_ref(), &later_path, later, true, |_, _, _| Ok(()))?;
                // A read-only open beside a writer can meet the active file mid-write
                // and a later one already synced: it sees the log up to here.
                if !read_only && (seen.was_synced() || seen.ends_with_marker) {
                    return Err(Error::corruption(
                        &path,
                        outcome.valid_end,
                        format!(
                            "value file ends without its seal record, but value file {later} \
                             holds a record written after a sync: records are missing"
                        ),
                    ));
                }
            }
            for &later in &numbers[i + 1..] {
                let later_path = value_file_path(dir, later, 0);
                out.torn_bytes += fs.file_size(&later_path).ctx("stat", &later_path)?;
                if !read_only {
                    fs.remove_file(&later_path).ctx("remove", &later_path)?;
                }
            }
            if !read_only {
                // IMPORTANT: the removals are durable before anything is written after
                // the new end of the log.
                fs.sync_dir(dir).ctx("sync directory", dir)?;
            }
        }
        if outcome.torn_at.is_some() {
            out.torn_bytes += outcome.file_len - outcome.valid_end;
            if outcome.valid_end == 0 {
                // Not even the header survived: the file never held a durable record.
                if !read_only {
                    fs.remove_file(&path).ctx("remove", &path)?;
                }
                if log_ends_here {
                    break;
                }
                continue;
            }
            if !read_only {
                fs.truncate(&path, outcome.valid_end)
                    .ctx("truncate", &path)?;
            }
        }
        let mut valid_end = outcome.valid_end;
        let mut ended = outcome.is_ended();
        if i + 1 == numbers.len()
            && outcome.sealed_next.is_none()
            && outcome.ends_with_marker
            && !read_only
        {
            // IMPORTANT: the last file of a cleanly closed log ends in a close marker.
            // Writing continues in it, so the marker goes first (truncated, durably): a
            // crash that later cut the file right after it would make the file look
            // complete, and the log would go on in the next file past lost records. The
            // first record appended says the file was synced up to here, as the marker did.
            valid_end -= MARKER_FRAME_LEN;
            fs.truncate(&path, valid_end).ctx("truncate", &path)?;
            ended = false;
        }
        // IMPORTANT: what recovery read (and any truncation) is durable before a manifest
        // records the sequence numbers found here.
        if !read_only {
            fs.open_append(&path)
                .ctx("open", &path)?
                .sync_data()
                .ctx("sync", &path)?;
        }
        file.set_total_bytes(valid_end);
        file.add_separated(sep_count, sep_bytes);
        out.logs.push(file);
        out.last_complete = ended;
        if log_ends_here {
            break;
        }
        if let Some(next) = outcome.sealed_next {
            if !numbers[i + 1..].contains(&next) {
                if read_only {
                    // A writer rolled to a file created after this open listed the
                    // directory: the view ends here.
                    break;
                }
                return Err(Error::corruption(
                    &value_file_path(dir, next, 0),
                    0,
                    format!("value file {next}, where value file {number} continues, is missing"),
                ));
            }
            expected_next = Some((number, next));
        } else {
            expected_next = None;
        }
    }
    Ok(out)
}

/// Fails if the manifest's torn tail `t` cannot be a write a crash interrupted: the value
/// log was closed cleanly (`vlog::closed_cleanly`). A read-only open, which may race a
/// writer's close (its last edit, then the marker), reads the manifest again before
/// judging.
fn judge_torn_manifest(
    fs: &dyn Fs,
    dir: &Path,
    num_levels: usize,
    t: &TornTail,
    log_numbers: &[u64],
    read_only: bool,
) -> Result<()> {
    if !crate::vlog::closed_cleanly(fs, dir, log_numbers)? {
        return Ok(());
    }
    if read_only {
        let (_, _, again) = read_manifest_with_tail(fs, dir, num_levels)?;
        if again.as_ref().is_none_or(|a| a.path != t.path) {
            return Ok(());
        }
    }
    Err(t.corruption("the value log says the database was closed cleanly after its last edit"))
}

/// Removes every file of `listing` that the installed version does not name.
fn remove_orphans(fs: &dyn Fs, dir: &Path, listing: &Listing, versions: &VersionSet) -> Result<()> {
    let v = versions.current();
    let tables: HashSet<u64> = v.levels.iter().flatten().map(|t| t.number()).collect();
    for &(ref name, kind, n, epoch) in &listing.files {
        let current_epoch = v.value_files.get(&n).map(|f| f.epoch());
        let orphan = match kind {
            FileType::Table => !tables.contains(&n),
            FileType::ValueLog | FileType::SvTable | FileType::Drops => {
                current_epoch != Some(epoch)
            }
            FileType::Manifest => n != versions.manifest_number(),
            FileType::Temp => true,
            FileType::Current | FileType::Lock | FileType::Identity | FileType::InfoLog => false,
        };
        if orphan {
            let path = dir.join(name);
            match fs.remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::Io {
                        op: "remove",
                        path,
                        source: e,
                    });
                }
                _ => {}
            }
        }
    }
    Ok(())
}

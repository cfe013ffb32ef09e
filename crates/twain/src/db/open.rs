//! Opening a database: recovery from the manifest and the value log.
//!
//! 1. Read the manifest named by `CURRENT` (an empty state for a new database).
//! 2. Replay every value file from the flushed point on into memtables, counting each
//!    file's separated bytes; a torn tail of the last file is truncated (and synced).
//! 3. Write a fresh manifest holding a snapshot, point `CURRENT` at it.
//! 4. Remove files no version names (crashed flushes and compactions, dead value files,
//!    old manifests, temporary files).
//! 5. Continue the last value file if it has room, else start a new one.

use super::background::{self, Background};
use super::write::{WritePath, WriteState};
use super::{DbInner, SuperVersion};
use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::names::{
    FileType, current_path, file_path, lock_path, parse_file_name_with_epoch, value_file_path,
};
use crate::format::record::FRAME_HEADER_LEN;
use crate::format::vlog::LogEntryKind;
use crate::fs::Fs;
use crate::key::{EntryKind, SeqNo, internal_key};
use crate::memtable::Memtable;
use crate::options::Options;
use crate::stats::Counters;
use crate::version::{VersionSet, VersionState, read_manifest};
use crate::vlog::{DropIndex, LogPosition, LogWriter, ValueFile, scan_value_file};
use crate::{Error, Result};
use arc_swap::ArcSwap;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
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
}

pub(crate) fn open(dir: &Path, opts: Options) -> Result<Arc<DbInner>> {
    opts.validate()?;
    let fs = Arc::clone(&opts.fs);
    if !fs.exists(dir).ctx("stat", dir)? {
        if !opts.create_if_missing {
            return Err(Error::NotFound(dir.to_path_buf()));
        }
        fs.create_dir_all(dir).ctx("create directory", dir)?;
    }
    let lock = fs.lock(&lock_path(dir)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock {
            Error::Locked(dir.to_path_buf())
        } else {
            Error::Io {
                op: "lock",
                path: lock_path(dir),
                source: e,
            }
        }
    })?;
    let exists = fs.exists(&current_path(dir)).ctx("stat", dir)?;
    if exists && opts.error_if_exists {
        return Err(Error::AlreadyExists(dir.to_path_buf()));
    }
    if !exists {
        // IMPORTANT: a new database is never created over another one's files (a lost
        // CURRENT would make them orphans, and orphans are removed below).
        crate::repair::refuse_to_create_over_data(fs.as_ref(), dir)?;
        if !opts.create_if_missing {
            return Err(Error::NotFound(dir.to_path_buf()));
        }
    }
    let mut state = if exists {
        read_manifest(fs.as_ref(), dir, opts.num_levels)
            .map_err(|e| crate::repair::point_to_repair(dir, e))?
            .0
    } else {
        VersionState::empty(opts.num_levels)
    };

    let names = fs.list_dir(dir).ctx("list", dir)?;
    let parsed: Vec<(FileType, u64, u32)> = names
        .iter()
        .filter_map(|n| parse_file_name_with_epoch(n))
        .collect();
    let on_disk: HashSet<(FileType, u64, u32)> = parsed.iter().copied().collect();
    for (&n, f) in &state.value_files {
        let Some(sealed) = f.sealed else { continue };
        let kind = if sealed.epoch == 0 {
            FileType::ValueLog
        } else {
            FileType::SvTable
        };
        let path = value_file_path(dir, n, sealed.epoch);
        if !on_disk.contains(&(kind, n, sealed.epoch)) {
            return Err(Error::corruption(
                &path,
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
        return Err(Error::corruption(
            &file_path(dir, FileType::ValueLog, flushed.file),
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
    let max_number = parsed.iter().map(|&(_, n, _)| n).max().unwrap_or(0);
    state.next_file_number = state.next_file_number.max(max_number + 1);

    let replayed = replay(&fs, dir, &opts, &log_numbers, flushed)?;
    for f in &replayed.logs {
        state.value_files.entry(f.number()).or_default();
    }
    let last_seq = replayed.max_seq.max(state.last_sequence);
    state.last_sequence = last_seq;

    // The drop files are the truth about dead records; the manifest's counts lag them
    // when a crash fell between appending drops and logging the edit that counts them.
    let drop_index = DropIndex::load(
        fs.as_ref(),
        dir,
        state
            .value_files
            .iter()
            .map(|(&n, f)| (n, f.sealed.map_or(0, |s| s.epoch))),
    )?;
    for (n, drops) in drop_index.lock().iter() {
        if let Some(f) = state.value_files.get_mut(n) {
            f.dropped_count = drops.seqs.len() as u64;
            f.dropped_bytes = drops.bytes;
        }
    }

    let cache = Arc::new(BlockCache::new(opts.block_cache_size));
    let mut versions = VersionSet::open(
        Arc::clone(&fs),
        dir,
        Arc::clone(&cache),
        state,
        &replayed.logs,
    )?;
    remove_orphans(fs.as_ref(), dir, &names, &versions)?;

    let log = match replayed.logs.last() {
        Some(f) if f.total_bytes() < opts.value_file_size => LogWriter::reopen(
            fs.as_ref(),
            Arc::clone(f),
            f.total_bytes(),
            opts.log_buffer_size,
        )?,
        last => {
            if let Some(full) = last {
                // IMPORTANT: the full last file becomes a sealed one; seal it as a roll
                // would, so the next recovery knows it is complete.
                let mut sealing =
                    LogWriter::reopen(fs.as_ref(), Arc::clone(full), full.total_bytes(), 0)?;
                sealing.sync_and_mark()?;
                sealing.release_tail();
            }
            let number = versions.new_file_number();
            let file = Arc::new(ValueFile::new(Arc::clone(&fs), dir, number));

            let log = LogWriter::create(fs.as_ref(), dir, Arc::clone(&file), opts.log_buffer_size)?;
            versions.add_log_file(file)?;
            log
        }
    };
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
        counters: Counters::default(),
        drop_index,
        gc_lock: Mutex::new(()),
        _lock: lock,
        opts,
    });
    Counters::add(&inner.counters.recovered_torn_bytes, replayed.torn_bytes);
    background::start(&inner)?;
    Ok(inner)
}

/// Replays log files `numbers` (ascending, all at or after the flushed point).
fn replay(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    opts: &Options,
    numbers: &[u64],
    flushed: LogPosition,
) -> Result<Replayed> {
    let mut out = Replayed {
        frozen: Vec::new(),
        mem: Arc::new(Memtable::new(1)),
        logs: Vec::new(),
        max_seq: 0,
        torn_bytes: 0,
    };
    let mut next_mem_id = 2;
    for (i, &number) in numbers.iter().enumerate() {
        let is_last = i + 1 == numbers.len();
        let file = Arc::new(ValueFile::new(Arc::clone(fs), dir, number));
        let path = file.path().to_path_buf();
        let start = if number == flushed.file {
            flushed.offset
        } else {
            0
        };
        let (mut sep_count, mut sep_bytes) = (0u64, 0u64);
        let mut key_buf = Vec::new();
        let outcome = scan_value_file(fs.as_ref(), &path, number, is_last, |at, len, reader| {
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
                    LogEntryKind::Inline => {
                        out.mem.insert(
                            &internal_key(e.key, e.seq, EntryKind::Inline as u8),
                            e.value,
                        );
                    }
                    LogEntryKind::Separated => {
                        ValueHandle {
                            file: number,
                            epoch: 0,
                            offset: payload_at + e.offset as u64,
                            len: e.len as u32,
                        }
                        .encode_to(&mut key_buf);
                        out.mem.insert(
                            &internal_key(e.key, e.seq, EntryKind::Handle as u8),
                            &key_buf,
                        );
                    }
                }
            }
            if at >= start && out.mem.approximate_bytes() >= opts.memtable_size {
                out.mem.freeze(LogPosition {
                    file: number,
                    offset: at + len,
                });
                let full = std::mem::replace(&mut out.mem, Arc::new(Memtable::new(next_mem_id)));
                next_mem_id += 1;
                out.frozen.push(full);
            }
            Ok(())
        })?;
        if !is_last && !outcome.ends_with_marker {
            return Err(Error::corruption(
                &path,
                outcome.valid_end,
                "value file ends without the seal marker a roll writes: records are missing",
            ));
        }
        if outcome.valid_end < start {
            return Err(Error::corruption(
                &path,
                outcome.valid_end,
                format!("value log ends before the flushed point at offset {start}"),
            ));
        }
        if outcome.torn_at.is_some() {
            out.torn_bytes += outcome.file_len - outcome.valid_end;
            if outcome.valid_end == 0 {
                // Not even the header survived: the file never held a durable record.
                fs.remove_file(&path).ctx("remove", &path)?;
                continue;
            }
            fs.truncate(&path, outcome.valid_end)
                .ctx("truncate", &path)?;
            // IMPORTANT: the truncation is synced before new records follow it.
            let mut f = fs.open_append(&path).ctx("open", &path)?;
            f.sync_data().ctx("sync", &path)?;
        }
        file.set_total_bytes(outcome.valid_end);
        file.add_separated(sep_count, sep_bytes);
        out.logs.push(file);
    }
    Ok(out)
}

/// Removes every file that the installed version does not name.
fn remove_orphans(fs: &dyn Fs, dir: &Path, names: &[String], versions: &VersionSet) -> Result<()> {
    let v = versions.current();
    let tables: HashSet<u64> = v.levels.iter().flatten().map(|t| t.number()).collect();
    for name in names {
        let Some((kind, n, epoch)) = parse_file_name_with_epoch(name) else {
            continue;
        };
        let current_epoch = v.value_files.get(&n).map(|f| f.epoch());
        let orphan = match kind {
            FileType::Table => !tables.contains(&n),
            FileType::ValueLog | FileType::SvTable | FileType::Drops => {
                current_epoch != Some(epoch)
            }
            FileType::Manifest => n != versions.manifest_number(),
            FileType::Temp => true,
            FileType::Current | FileType::Lock => false,
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

//! [`Db::checkpoint`](super::Db::checkpoint): an openable copy of a live database in another
//! directory, consistent at one sequence number, made while writes go on.
//!
//! 1. Flush the memtable (`flush::flush_all`): every write acknowledged before the call is
//!    then in tables and value files, and the manifest's flushed point is past it.
//! 2. Take the current version. Holding it keeps every file it names on disk (files are
//!    deleted when the last version naming them goes) and holds back any punch of runs
//!    recorded after it (`db::punch` waits for the versions before a run's edit).
//! 3. Link (or copy, with `link` false or where the file system cannot link) the files
//!    that never change: tables and sealed value files (logs, SVTables, transient files).
//!    Copy the files that do: drop files, which compactions append to (open cuts a copy
//!    back to the blocks the manifest counts), and the value log the flushed point lies
//!    in, up to that point. Log files after it hold only later writes and are left out.
//! 4. Sync the copies and the directory, give the copy its own `IDENTITY`, then write its
//!    manifest (a snapshot of the version, with the last sequence set to the flushed one)
//!    and `CURRENT`, last: a checkpoint cut short by a crash has no `CURRENT` and is not a
//!    database (open refuses it; remove the directory and start again).
//!
//! A sealed value file is the one file both databases may change in place: value GC
//! punches holes in it. GC never punches a file with more than one name
//! ([`gc::shared_file`](crate::gc::shared_file)); it rewrites it, which unlinks only its
//! own name.

use super::{DbInner, flush};
use crate::error::IoContext;
use crate::format::names::{FileType, drop_file_path, file_path, value_file_path};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::{Error, Result};
use std::path::Path;
use std::sync::Arc;

/// How many bytes one read of a copy takes.
const COPY_CHUNK: usize = 1 << 20;

/// What [`Db::checkpoint`](super::Db::checkpoint) made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckpointInfo {
    /// The checkpoint holds exactly the writes up to this sequence number: every write
    /// acknowledged before the call, and perhaps some made during it.
    pub sequence: SeqNo,
    /// Files linked (shared with the database until one of them deletes its name).
    pub files_linked: u64,
    /// Their bytes.
    pub bytes_linked: u64,
    /// Files copied.
    pub files_copied: u64,
    /// Their bytes.
    pub bytes_copied: u64,
}

/// How a file goes into the checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Linked where possible (the file never changes, or changes only by punching).
    Link,
    /// Copied whole (it is appended to).
    Copy,
    /// Its first `n` bytes copied.
    Prefix(u64),
}

/// Makes the checkpoint of `inner` in `to` (see the module docs).
pub(crate) fn checkpoint(inner: &DbInner, to: &Path, link: bool) -> Result<CheckpointInfo> {
    if let Some(why) = &inner.read_only {
        return Err(Error::ReadOnly(format!(
            "a checkpoint needs a writable open to flush ({why})"
        )));
    }
    let fs = inner.fs.as_ref();
    prepare_dir(fs, &inner.dir, to, "checkpoint")?;
    flush::flush_all(inner)?;
    // IMPORTANT: held until the end, it keeps the files on disk and unpunched.
    let version = Arc::clone(&inner.super_version().version);
    let mut state = version.state.clone();
    let Some(sequence) = state.flushed_sequence else {
        return Err(Error::NotSupported(
            "a checkpoint of a database whose manifest predates the flushed sequence",
        ));
    };
    let point = state.flushed_point;
    // The log after the flushed point holds only writes after `sequence`.
    state
        .value_files
        .retain(|&n, f| f.sealed.is_some() || n <= point.file);
    state.last_sequence = sequence;

    let mut files = Vec::new();
    for table in state.levels.iter().flatten() {
        files.push((FileType::Table, table.number, 0, Way::Link));
    }
    for (&n, f) in &state.value_files {
        let epoch = f.sealed.map_or(0, |s| s.epoch);
        let way = match f.sealed {
            Some(_) => Way::Link,
            // The log the flushed point lies in, up to it; an unsealed file before it
            // (not expected: the flush that passes a file records its seal) whole.
            None if n == point.file => Way::Prefix(point.offset),
            None => Way::Copy,
        };
        let kind = if epoch == 0 {
            FileType::ValueLog
        } else {
            FileType::SvTable
        };
        files.push((kind, n, epoch, way));
        files.push((FileType::Drops, n, epoch, Way::Copy));
    }

    let mut info = CheckpointInfo {
        sequence,
        ..CheckpointInfo::default()
    };
    for &(kind, number, epoch, way) in &files {
        let name = match kind {
            FileType::Table => file_path(Path::new(""), kind, number),
            FileType::Drops => drop_file_path(Path::new(""), number, epoch),
            _ => value_file_path(Path::new(""), number, epoch),
        };
        let (from, into) = (inner.dir.join(&name), to.join(&name));
        if kind == FileType::Drops && !fs.exists(&from).ctx("stat", &from)? {
            continue; // no drop was ever recorded for the file
        }
        if way == Way::Link && link {
            match fs.hard_link(&from, &into) {
                Ok(()) => {
                    info.files_linked += 1;
                    info.bytes_linked += fs.file_size(&into).ctx("stat", &into)?;
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {}
                Err(e) => {
                    return Err(Error::Io {
                        op: "link",
                        path: into,
                        source: e,
                    });
                }
            }
        }
        let limit = match way {
            Way::Prefix(n) => Some(n),
            Way::Link | Way::Copy => None,
        };
        info.bytes_copied += copy_file(fs, &from, &into, limit)?;
        info.files_copied += 1;
    }
    fs.sync_dir(to).ctx("sync directory", to)?;
    crate::format::identity::ensure_identity(fs, to)?;
    let manifest = state.next_file_number;
    crate::version::write_new_manifest(fs, to, manifest, &state, manifest + 1)?;
    drop(version);
    Ok(info)
}

/// Creates `to` for a `what` (a checkpoint, a copy), which must not be the database's
/// own directory nor hold anything.
pub(super) fn prepare_dir(fs: &dyn Fs, dir: &Path, to: &Path, what: &str) -> Result<()> {
    if to == dir {
        return Err(Error::InvalidArgument(format!(
            "a {what} cannot go into the database's own directory {}",
            to.display()
        )));
    }
    if fs.exists(to).ctx("stat", to)? {
        let entries = fs.list_dir(to).ctx("list", to)?;
        if !entries.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "the {what} directory {} is not empty",
                to.display()
            )));
        }
    }
    fs.create_dir_all(to).ctx("create directory", to)
}

/// Copies `from` (its first `limit` bytes, if given) into a new file `into`, synced.
/// Returns the bytes copied.
pub(crate) fn copy_file(fs: &dyn Fs, from: &Path, into: &Path, limit: Option<u64>) -> Result<u64> {
    let src = fs.open_read(from).ctx("open", from)?;
    let len = src.len().ctx("stat", from)?;
    let end = match limit {
        Some(n) if n > len => {
            return Err(Error::corruption(
                from,
                len,
                format!("the file has {len} bytes, the manifest needs {n}"),
            ));
        }
        Some(n) => n,
        None => len,
    };
    let mut out = fs.create_new(into).ctx("create", into)?;
    let mut at = 0;
    while at < end {
        let n = (end - at).min(COPY_CHUNK as u64) as usize;
        let bytes = src.read_vec(at, n).ctx("read", from)?;
        out.append(&bytes).ctx("append", into)?;
        at += n as u64;
    }
    out.sync_data().ctx("sync", into)?;
    Ok(end)
}

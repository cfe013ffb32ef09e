//! Incremental backups of a live database, with restore, listing, verification and
//! deletion (RocksDB's BackupEngine, `badger backup`).
//!
//! A backup directory holds:
//!
//! ```text
//! LOCK              held while a backup, a deletion or a verification runs
//! files/NAME.SIZE.CRC   the shared store: one copy of each distinct file content
//! meta/NNNNNN       one description per backup (format::backup_meta)
//! staging/          the checkpoint of the backup being made
//! ```
//!
//! A backup is a [`checkpoint`](crate::Db::checkpoint) into `staging/` (hard links where the
//! file system allows: cheap and consistent at one sequence number, with writes going on),
//! whose files are then checksummed and *copied* into the store unless a copy of the same
//! name, size and CRC-32C is there already: tables and sealed value files unchanged since an
//! earlier backup are shared, not copied again. The description is written last (temporary
//! file, synced, renamed, directory synced): a backup cut short by a crash is not listed,
//! and the store files it copied are removed by the next backup or deletion.
//!
//! Restore copies a backup's files into an empty directory, checking each one's size and
//! checksum as it goes, and writes `CURRENT` last, so a restore cut short is not a database.

use crate::error::IoContext;
use crate::format::backup_meta::{BackupFile, BackupMeta, MAX_META_BYTES};
use crate::fs::{FileLock, Fs};
use crate::{Db, Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How many bytes one read of a copy or a checksum takes.
const CHUNK: usize = 1 << 20;

/// A backup as [`list`] shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackupInfo {
    /// Its number.
    pub id: u64,
    /// When it was made, in seconds since the Unix epoch.
    pub created: u64,
    /// It holds every write of the database up to this sequence number.
    pub sequence: u64,
    /// How many files it has.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Of those, the bytes this backup added to the shared store (the rest it shares with
    /// earlier backups). Known only right after [`create`]; 0 in [`list`].
    pub new_bytes: u64,
}

impl BackupInfo {
    fn of(meta: &BackupMeta, new_bytes: u64) -> BackupInfo {
        BackupInfo {
            id: meta.id,
            created: meta.created,
            sequence: meta.sequence,
            files: meta.files.len() as u64,
            bytes: meta.files.iter().map(|f| f.size).sum(),
            new_bytes,
        }
    }
}

fn store_dir(dir: &Path) -> PathBuf {
    dir.join("files")
}

fn meta_dir(dir: &Path) -> PathBuf {
    dir.join("meta")
}

fn meta_path(dir: &Path, id: u64) -> PathBuf {
    meta_dir(dir).join(format!("{id:06}"))
}

/// Takes the backup directory's lock (creating the directory's layout).
fn lock_dir(fs: &dyn Fs, dir: &Path) -> Result<Box<dyn FileLock>> {
    for d in [
        dir.to_path_buf(),
        store_dir(dir),
        meta_dir(dir),
        dir.join("staging"),
    ] {
        fs.create_dir_all(&d).ctx("create directory", &d)?;
    }
    let path = dir.join("LOCK");
    fs.lock(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => Error::Locked(dir.to_path_buf()),
        _ => Error::Io {
            op: "lock",
            path,
            source: e,
        },
    })
}

/// Backs `db` up into `dir` (created if missing). See the module docs.
///
/// # Errors
/// [`Error::Locked`] while another backup or deletion runs in `dir`; what
/// [`Db::checkpoint`] returns; I/O errors, and corruption of an earlier description.
pub fn create(db: &Db, dir: &Path) -> Result<BackupInfo> {
    let fs = db.options().fs.clone();
    let fs = fs.as_ref();
    let _lock = lock_dir(fs, dir)?;
    let staging = dir.join("staging");
    remove_all(fs, &staging)?;
    let metas = read_all(fs, dir)?;
    remove_unreferenced(fs, dir, &metas)?;
    let id = metas.iter().map(|m| m.id).max().unwrap_or(0) + 1;

    let checkpoint = db.checkpoint(&staging, true)?;
    let mut names = fs.list_dir(&staging).ctx("list", &staging)?;
    names.sort();
    let (store, mut files, mut new_bytes) = (store_dir(dir), Vec::new(), 0);
    for name in names {
        let path = staging.join(&name);
        let (size, crc32c) = checksum(fs, &path)?;
        let file = BackupFile { name, size, crc32c };
        let stored = store.join(file.store_name());
        if !fs.exists(&stored).ctx("stat", &stored)? {
            let tmp = store.join(format!("{}.tmp", file.store_name()));
            if fs.exists(&tmp).ctx("stat", &tmp)? {
                fs.remove_file(&tmp).ctx("remove", &tmp)?;
            }
            let copied = copy_checked(fs, &path, &tmp, &file)?;
            fs.rename(&tmp, &stored).ctx("rename", &tmp)?;
            new_bytes += copied;
        }
        files.push(file);
    }
    fs.sync_dir(&store).ctx("sync directory", &store)?;
    let meta = BackupMeta {
        id,
        created: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        sequence: checkpoint.sequence,
        files,
    };
    write_meta(fs, dir, &meta)?;
    remove_all(fs, &staging)?;
    Ok(BackupInfo::of(&meta, new_bytes))
}

/// The backups in `dir`, oldest first.
pub fn list(fs: &dyn Fs, dir: &Path) -> Result<Vec<BackupInfo>> {
    if !fs.exists(&meta_dir(dir)).ctx("stat", dir)? {
        return Err(Error::NotFound(dir.to_path_buf()));
    }
    Ok(read_all(fs, dir)?
        .iter()
        .map(|m| BackupInfo::of(m, 0))
        .collect())
}

/// Checks that every file of backup `id` is in the store with its size and checksum.
/// Returns the backup and the problems found (each a corruption naming the store file),
/// empty when the backup is whole.
pub fn verify(fs: &dyn Fs, dir: &Path, id: u64) -> Result<(BackupInfo, Vec<Error>)> {
    let meta = read_meta(fs, dir, id)?;
    let mut problems = Vec::new();
    for file in &meta.files {
        let stored = store_dir(dir).join(file.store_name());
        match checksum(fs, &stored) {
            Ok(found) if found == (file.size, file.crc32c) => {}
            Ok((size, crc)) => problems.push(Error::corruption(
                &stored,
                0,
                format!(
                    "{} bytes with CRC-32C {crc:08x}; the backup recorded {} bytes with {:08x}",
                    size, file.size, file.crc32c
                ),
            )),
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                problems.push(Error::corruption(&stored, 0, "missing from the store"));
            }
            Err(e) => problems.push(e),
        }
    }
    Ok((BackupInfo::of(&meta, 0), problems))
}

/// Restores backup `id` of `dir` into `to`, which must not exist or be empty. Every file
/// is checked against its recorded size and checksum as it is copied; `CURRENT` is
/// written last.
///
/// # Errors
/// [`Error::InvalidArgument`] if `to` is not empty; a corruption naming the store file
/// whose bytes differ from the backup's record; I/O errors.
pub fn restore(fs: &dyn Fs, dir: &Path, id: u64, to: &Path) -> Result<BackupInfo> {
    let meta = read_meta(fs, dir, id)?;
    if fs.exists(to).ctx("stat", to)? && !fs.list_dir(to).ctx("list", to)?.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "the restore directory {} is not empty",
            to.display()
        )));
    }
    fs.create_dir_all(to).ctx("create directory", to)?;
    let (current, rest): (Vec<&BackupFile>, Vec<&BackupFile>) =
        meta.files.iter().partition(|f| f.name == "CURRENT");
    if current.is_empty() {
        return Err(Error::corruption(
            &meta_path(dir, id),
            0,
            "the backup has no CURRENT",
        ));
    }
    for file in &rest {
        let stored = store_dir(dir).join(file.store_name());
        copy_checked(fs, &stored, &to.join(&file.name), file)?;
    }
    fs.sync_dir(to).ctx("sync directory", to)?;
    for file in current {
        let stored = store_dir(dir).join(file.store_name());
        let tmp = to.join("CURRENT.tmp");
        copy_checked(fs, &stored, &tmp, file)?;
        fs.rename(&tmp, &to.join("CURRENT")).ctx("rename", &tmp)?;
    }
    fs.sync_dir(to).ctx("sync directory", to)?;
    Ok(BackupInfo::of(&meta, 0))
}

/// Deletes backup `id` of `dir`, and the store files no other backup shares. Returns the
/// bytes freed.
pub fn delete(fs: &dyn Fs, dir: &Path, id: u64) -> Result<u64> {
    let _lock = lock_dir(fs, dir)?;
    read_meta(fs, dir, id)?;
    let path = meta_path(dir, id);
    fs.remove_file(&path).ctx("remove", &path)?;
    fs.sync_dir(&meta_dir(dir)).ctx("sync directory", dir)?;
    let metas = read_all(fs, dir)?;
    remove_unreferenced(fs, dir, &metas)
}

/// Reads the description of backup `id`.
fn read_meta(fs: &dyn Fs, dir: &Path, id: u64) -> Result<BackupMeta> {
    let path = meta_path(dir, id);
    if !fs.exists(&path).ctx("stat", &path)? {
        return Err(Error::InvalidArgument(format!(
            "no backup {id} in {}",
            dir.display()
        )));
    }
    let file = fs.open_read(&path).ctx("open", &path)?;
    let len = file.len().ctx("stat", &path)?;
    if len > MAX_META_BYTES {
        return Err(Error::corruption(
            &path,
            0,
            format!("a backup description of {len} bytes (at most {MAX_META_BYTES})"),
        ));
    }
    let bytes = file.read_vec(0, len as usize).ctx("read", &path)?;
    let meta =
        BackupMeta::decode(&bytes).map_err(|(at, what)| Error::corruption(&path, at, what))?;
    if meta.id != id {
        return Err(Error::corruption(
            &path,
            0,
            format!(
                "the description of backup {id} says it is backup {}",
                meta.id
            ),
        ));
    }
    Ok(meta)
}

/// Every backup's description, oldest first. Leftover temporary descriptions are ignored.
fn read_all(fs: &dyn Fs, dir: &Path) -> Result<Vec<BackupMeta>> {
    let mut ids = Vec::new();
    for name in fs.list_dir(&meta_dir(dir)).ctx("list", dir)? {
        if let Ok(id) = name.parse::<u64>() {
            ids.push(id);
        }
    }
    ids.sort_unstable();
    ids.into_iter().map(|id| read_meta(fs, dir, id)).collect()
}

/// Writes a description durably: a temporary file, synced, renamed, the directory synced.
fn write_meta(fs: &dyn Fs, dir: &Path, meta: &BackupMeta) -> Result<()> {
    let path = meta_path(dir, meta.id);
    let tmp = path.with_extension("tmp");
    let mut f = fs.create(&tmp).ctx("create", &tmp)?;
    f.append(&meta.encode()).ctx("append", &tmp)?;
    f.sync_data().ctx("sync", &tmp)?;
    drop(f);
    fs.rename(&tmp, &path).ctx("rename", &tmp)?;
    fs.sync_dir(&meta_dir(dir)).ctx("sync directory", dir)
}

/// Removes the store files no description names (a backup cut short, a deleted one),
/// and temporary files. Returns their bytes.
fn remove_unreferenced(fs: &dyn Fs, dir: &Path, metas: &[BackupMeta]) -> Result<u64> {
    let keep: BTreeSet<String> = metas
        .iter()
        .flat_map(|m| m.files.iter().map(BackupFile::store_name))
        .collect();
    let store = store_dir(dir);
    let mut freed = 0;
    for name in fs.list_dir(&store).ctx("list", &store)? {
        if !keep.contains(&name) {
            let path = store.join(&name);
            freed += fs.file_size(&path).ctx("stat", &path)?;
            fs.remove_file(&path).ctx("remove", &path)?;
        }
    }
    for name in fs.list_dir(&meta_dir(dir)).ctx("list", dir)? {
        if name.ends_with(".tmp") {
            let path = meta_dir(dir).join(name);
            fs.remove_file(&path).ctx("remove", &path)?;
        }
    }
    Ok(freed)
}

/// Removes every file in `dir`.
fn remove_all(fs: &dyn Fs, dir: &Path) -> Result<()> {
    for name in fs.list_dir(dir).ctx("list", dir)? {
        let path = dir.join(name);
        fs.remove_file(&path).ctx("remove", &path)?;
    }
    Ok(())
}

/// The size and CRC-32C of the file at `path`.
fn checksum(fs: &dyn Fs, path: &Path) -> Result<(u64, u32)> {
    let file = fs.open_read(path).ctx("open", path)?;
    let len = file.len().ctx("stat", path)?;
    let (mut at, mut crc) = (0, 0);
    while at < len {
        let n = (len - at).min(CHUNK as u64) as usize;
        let bytes = file.read_vec(at, n).ctx("read", path)?;
        crc = crc32c::crc32c_append(crc, &bytes);
        at += n as u64;
    }
    Ok((len, crc))
}

/// Copies `from` into the new file `into`, synced, checking that what it copied has the
/// size and checksum `file` records (a corruption naming `from` otherwise). Returns the
/// bytes copied.
fn copy_checked(fs: &dyn Fs, from: &Path, into: &Path, file: &BackupFile) -> Result<u64> {
    let src = fs.open_read(from).ctx("open", from)?;
    let len = src.len().ctx("stat", from)?;
    if len != file.size {
        return Err(Error::corruption(
            from,
            len.min(file.size),
            format!("{len} bytes; the backup recorded {}", file.size),
        ));
    }
    let mut out = fs.create_new(into).ctx("create", into)?;
    let (mut at, mut crc) = (0, 0);
    while at < len {
        let n = (len - at).min(CHUNK as u64) as usize;
        let bytes = src.read_vec(at, n).ctx("read", from)?;
        crc = crc32c::crc32c_append(crc, &bytes);
        out.append(&bytes).ctx("append", into)?;
        at += n as u64;
    }
    if crc != file.crc32c {
        drop(out);
        let _ = fs.remove_file(into);
        return Err(Error::corruption(
            from,
            0,
            format!("CRC-32C {crc:08x}; the backup recorded {:08x}", file.crc32c),
        ));
    }
    out.sync_data().ctx("sync", into)?;
    Ok(len)
}

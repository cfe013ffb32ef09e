//! The version set: the current version and the manifest that makes it durable.

use super::{Version, VersionState};
use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::file_header::{FileKind, decode_header, encode_header};
use crate::format::manifest::{ValueFileOrigin, VersionEdit};
use crate::format::names::{
    FileType, current_contents, current_path, file_path, lock_path, parse_current,
};
use crate::format::record::{Frame, decode_frame, next_good_frame, put_frame};
use crate::fs::{FileLock, Fs, WritableFile};
use crate::stats::{Counters, Totals};
use crate::vlog::ValueFile;
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The manifest is rewritten as a snapshot once it grows past this size.
const MANIFEST_ROLL_BYTES: u64 = 16 << 20;

/// The current version and the manifest. Not thread-safe by itself: the engine keeps it
/// behind one mutex, held across each manifest write so edits are logged in order.
///
/// Every manifest write first checks that the database's `LOCK` is still the file this
/// process locked (`check_lock`): if it was removed or replaced, another process may have
/// opened the database, and the write fails instead of both writing.
pub struct VersionSet {
    fs: Arc<dyn Fs>,
    dir: PathBuf,
    cache: Arc<BlockCache>,
    current: Arc<Version>,
    /// `None` for a database opened read-only: every edit is refused.
    manifest: Option<Box<dyn WritableFile>>,
    /// The lock held on the directory (`None` when opened read-only).
    lock: Option<Arc<dyn FileLock>>,
    manifest_number: u64,
    /// Shared with the writer, which hands out numbers for new value files.
    next_file_number: Arc<AtomicU64>,
    /// Bytes written to manifests.
    bytes_written: u64,
    /// Value files deleted because an edit left nothing in them referenced.
    dead_files_deleted: u64,
    /// Set when a manifest write or sync failed: the failed edit may be in the file, so
    /// no later edit (computed without it) may follow it.
    failed: bool,
    /// The cumulative counters the manifest held at open (`(id, value)`, unknown ids
    /// included).
    counters_at_open: Vec<(u64, u64)>,
    /// This open's counters, recorded with every edit once attached.
    counters: Option<Arc<Counters>>,
}

impl std::fmt::Debug for VersionSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VersionSet")
            .field("manifest", &self.manifest_number)
            .field(
                "next_file_number",
                &self.next_file_number.load(Ordering::Relaxed),
            )
            .finish()
    }
}

/// Fails unless `lock` still holds `dir`'s `LOCK`: the file at that path must be the one
/// locked. An advisory lock belongs to the file, so once `LOCK` is deleted or replaced a
/// second process can lock a new `LOCK` and open the database next to this one.
pub(crate) fn check_lock(lock: &dyn FileLock, dir: &Path) -> Result<()> {
    let path = lock_path(dir);
    let source = match lock.still_held() {
        Ok(true) => return Ok(()),
        Ok(false) => std::io::Error::other(
            "the LOCK file was deleted or replaced while the database was open: another \
             process may have opened it, so this one stops writing",
        ),
        Err(e) => e,
    };
    Err(Error::Io {
        op: "lock check",
        path,
        source,
    })
}

/// Where a manifest's intact edits end short of the file: an incomplete or damaged last
/// edit. A crash while that edit was written leaves one (the edit was never acknowledged,
/// and replay stops before it); so does a manifest that lost acknowledged edits to
/// truncation or damage. Nothing in the manifest tells the two apart, so `db::open` weighs
/// the tail against the rest of the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// The manifest's path.
    pub path: PathBuf,
    /// Where the incomplete or damaged edit starts.
    pub offset: u64,
    /// What is wrong with it.
    pub what: String,
}

impl TornTail {
    /// The corruption of the manifest, given why the tail cannot be a torn write.
    pub fn corruption(&self, why: impl std::fmt::Display) -> Error {
        Error::corruption(
            &self.path,
            self.offset,
            format!(
                "the manifest ends in a damaged or incomplete edit ({}), and {why}: edits the \
                 database acknowledged are lost (a truncated or damaged manifest)",
                self.what
            ),
        )
    }
}

/// Reads the manifest named by `CURRENT` and replays its edits.
pub(crate) fn read_manifest(
    fs: &dyn Fs,
    dir: &Path,
    num_levels: usize,
) -> Result<(VersionState, u64)> {
    read_manifest_with_tail(fs, dir, num_levels).map(|(state, number, _)| (state, number))
}

/// [`read_manifest`], also returning the manifest's torn tail, if its edits stop short of
/// its end.
pub(crate) fn read_manifest_with_tail(
    fs: &dyn Fs,
    dir: &Path,
    num_levels: usize,
) -> Result<(VersionState, u64, Option<TornTail>)> {
    let current = current_path(dir);
    let contents = fs
        .open_read(&current)
        .and_then(|f| {
            let len = f.len()?;
            f.read_vec(0, len as usize)
        })
        .ctx("read", &current)?;
    let number = parse_current(&contents)
        .ok_or_else(|| Error::corruption(&current, 0, "CURRENT does not name a manifest"))?;
    let (state, torn) = read_manifest_file_with_tail(fs, dir, number, num_levels)?;
    Ok((state, number, torn))
}

/// Reads manifest `number` of `dir` and replays its edits.
pub(crate) fn read_manifest_file(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    num_levels: usize,
) -> Result<VersionState> {
    read_manifest_file_with_tail(fs, dir, number, num_levels).map(|(state, _)| state)
}

/// [`read_manifest_file`], also returning its torn tail, if its edits stop short of its end.
fn read_manifest_file_with_tail(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    num_levels: usize,
) -> Result<(VersionState, Option<TornTail>)> {
    let path = file_path(dir, FileType::Manifest, number);
    let bytes = fs
        .open_read(&path)
        .and_then(|f| {
            let len = f.len()?;
            f.read_vec(0, len as usize)
        })
        .ctx("read", &path)?;
    match decode_header(FileKind::Manifest, &bytes) {
        Ok(n) if n == number => {}
        Ok(n) => {
            return Err(Error::corruption(
                &path,
                0,
                format!("header names manifest {n}"),
            ));
        }
        Err(e) => return Err(e.into_corruption(&path, 0)),
    }
    let mut state = VersionState::empty(num_levels);
    let mut offset = crate::format::file_header::FILE_HEADER_LEN;
    let mut edits = 0usize;
    let mut torn = None;
    while offset < bytes.len() {
        match decode_frame(bytes.get(offset..).unwrap_or_default()) {
            Frame::Good { payload, frame_len } => {
                let edit = VersionEdit::decode(payload)
                    .map_err(|e| e.into_corruption(&path, (offset + 8) as u64))?;
                state
                    .apply(&edit)
                    .map_err(|what| Error::corruption(&path, offset as u64, what))?;
                edits += 1;
                offset += frame_len;
            }
            // Each edit is synced before the next is written, so damage followed by an
            // intact edit is corruption; damage at the very end may be an unacknowledged
            // edit (the caller judges the tail).
            Frame::Truncated { .. } => {
                torn = Some("an incomplete edit".to_string());
                break;
            }
            Frame::Bad { what } => {
                if next_good_frame(&bytes, offset).is_some() {
                    return Err(Error::corruption(&path, offset as u64, what));
                }
                torn = Some(what.to_string());
                break;
            }
        }
    }
    if edits == 0 {
        return Err(Error::corruption(
            &path,
            offset as u64,
            "manifest holds no version edit",
        ));
    }
    let torn = torn.map(|what| TornTail {
        path,
        offset: offset as u64,
        what,
    });
    Ok((state, torn))
}

impl VersionSet {
    /// Opens the version set of a database: `state` comes from the manifest (or is empty
    /// for a new database), `value_files` are the log files found after the flushed point.
    /// Writes a fresh manifest holding a snapshot and points `CURRENT` at it, after
    /// checking `lock`.
    pub(crate) fn open(
        fs: Arc<dyn Fs>,
        dir: &Path,
        cache: Arc<BlockCache>,
        state: VersionState,
        value_files: &[Arc<ValueFile>],
        lock: Arc<dyn FileLock>,
    ) -> Result<VersionSet> {
        let next_file_number = Arc::new(AtomicU64::new(state.next_file_number));
        let counters_at_open = state.counters.clone().unwrap_or_default();
        let version = Version::materialize(state, None, value_files, &fs, dir, &cache)?;
        let manifest_number = next_file_number.fetch_add(1, Ordering::SeqCst);
        check_lock(lock.as_ref(), dir)?;
        let (manifest, bytes) = write_new_manifest(
            fs.as_ref(),
            dir,
            manifest_number,
            &version.state,
            next_file_number.load(Ordering::SeqCst),
        )?;
        Ok(VersionSet {
            fs,
            dir: dir.to_path_buf(),
            cache,
            current: Arc::new(version),
            manifest: Some(manifest),
            lock: Some(lock),
            manifest_number,
            next_file_number,
            bytes_written: bytes,
            dead_files_deleted: 0,
            failed: false,
            counters_at_open,
            counters: None,
        })
    }

    /// The version set of a database opened read-only: the version of manifest
    /// `manifest_number` (`state`) with the log files `value_files`. Writes nothing, and
    /// refuses every edit.
    pub(crate) fn open_read_only(
        fs: Arc<dyn Fs>,
        dir: &Path,
        cache: Arc<BlockCache>,
        state: VersionState,
        value_files: &[Arc<ValueFile>],
        manifest_number: u64,
    ) -> Result<VersionSet> {
        let next_file_number = Arc::new(AtomicU64::new(state.next_file_number));
        let counters_at_open = state.counters.clone().unwrap_or_default();
        let version = Version::materialize(state, None, value_files, &fs, dir, &cache)?;
        Ok(VersionSet {
            fs,
            dir: dir.to_path_buf(),
            cache,
            current: Arc::new(version),
            manifest: None,
            lock: None,
            manifest_number,
            next_file_number,
            bytes_written: 0,
            dead_files_deleted: 0,
            failed: false,
            counters_at_open,
            counters: None,
        })
    }

    /// The current version.
    pub fn current(&self) -> &Arc<Version> {
        &self.current
    }

    /// The counter of file numbers, shared with the writer.
    pub fn file_numbers(&self) -> &Arc<AtomicU64> {
        &self.next_file_number
    }

    /// Hands out a new file number.
    pub fn new_file_number(&self) -> u64 {
        self.next_file_number.fetch_add(1, Ordering::SeqCst)
    }

    /// Hands out `n` consecutive new file numbers: the first of them.
    pub fn new_file_numbers(&self, n: u64) -> u64 {
        self.next_file_number.fetch_add(n, Ordering::SeqCst)
    }

    /// The live manifest's number.
    pub fn manifest_number(&self) -> u64 {
        self.manifest_number
    }

    /// Bytes written to manifests since open.
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    /// Value files deleted since open because nothing in them was referenced any more
    /// (without being read).
    pub fn dead_files_deleted(&self) -> u64 {
        self.dead_files_deleted
    }

    /// Records `counters` (this open's) with every later edit, on top of the totals the
    /// manifest held at open.
    pub(crate) fn attach_counters(&mut self, counters: Arc<Counters>) {
        self.counters = Some(counters);
    }

    /// The cumulative counters the manifest held when the database was opened.
    pub fn totals_at_open(&self) -> Totals {
        Totals::from_pairs(&self.counters_at_open)
    }

    /// This open's share of the cumulative counters (zero until counters are attached).
    pub fn totals_since_open(&self) -> Totals {
        match &self.counters {
            Some(c) => c.totals(self.bytes_written, self.dead_files_deleted),
            None => Totals::default(),
        }
    }

    /// Records the counters with a manifest write that changes nothing else: at close, so
    /// the next open starts from them.
    pub fn record_counters(&mut self) -> Result<()> {
        self.log_and_apply(VersionEdit::default()).map(|_| ())
    }

    /// Makes `edit` durable in the manifest, then installs the version it produces and
    /// retires the files the new version no longer names.
    ///
    /// If the manifest write or sync fails, nothing is installed and the error is
    /// returned; the caller puts the database into its read-only error state.
    pub fn log_and_apply(&mut self, mut edit: VersionEdit) -> Result<Arc<Version>> {
        if self.failed {
            return Err(Error::ReadOnly(
                "an earlier manifest write failed; reopen to recover".into(),
            ));
        }
        // The cumulative counters as of this edit (its own manifest bytes are counted by
        // the next one).
        let totals = self
            .counters
            .is_some()
            .then(|| self.totals_at_open().plus(self.totals_since_open()));
        if self.manifest.is_none() {
            return Err(Error::ReadOnly("opened read-only".into()));
        }
        edit.next_file_number = Some(self.next_file_number.load(Ordering::SeqCst));
        // A compaction that started before GC deleted a value file can still bring drops
        // for it: they count against nothing, and kept they would bring the file back into
        // the manifest's counts.
        let live = &self.current.state.value_files;
        edit.value_file_drops
            .retain(|d| live.contains_key(&d.number));
        let mut state = self.current.state.clone();
        state.apply(&edit).map_err(Error::InvalidArgument)?;

        // A value file the edit leaves with nothing referenced is deleted by the same edit.
        let dead: Vec<u64> = state
            .value_files
            .iter()
            .filter(|(_, f)| f.is_dead())
            .map(|(&n, _)| n)
            .collect();
        let dead_count = dead.len() as u64;
        let transient_freed: u64 = dead
            .iter()
            .filter_map(|n| state.value_files.get(n))
            .filter(|f| f.origin == ValueFileOrigin::Transient)
            .filter_map(|f| {
                f.sealed
                    .map(|s| s.total_bytes.saturating_sub(f.punched_bytes))
            })
            .sum();
        if let Some(mut totals) = totals {
            totals.gc_files_deleted_unread += dead_count;
            let pairs = totals.to_pairs(&self.counters_at_open);
            state.counters = Some(pairs.clone());
            edit.counters = Some(pairs);
        }
        for n in dead {
            state.value_files.remove(&n);
            edit.deleted_value_files.push(n);
        }
        let next = Version::materialize(
            state,
            Some(&self.current),
            &[],
            &self.fs,
            &self.dir,
            &self.cache,
        )?;
        self.write_edit(&edit)?;
        self.dead_files_deleted += dead_count;
        if let Some(c) = &self.counters {
            Counters::add(&c.transient_bytes_freed, transient_freed);
        }
        let roll = self
            .manifest
            .as_ref()
            .is_some_and(|m| m.len() > MANIFEST_ROLL_BYTES);
        self.install(next);
        if roll {
            self.roll_manifest()?;
        }
        Ok(Arc::clone(&self.current))
    }

    /// Makes the file numbers handed out so far durable, without changing the version: an
    /// edit holding only the next file number. After it, no later process of this
    /// database hands out those numbers again, so a compaction worker may write under
    /// numbers reserved for it even if this process dies meanwhile (`db::offload`).
    pub fn log_file_numbers(&mut self) -> Result<()> {
        if self.failed {
            return Err(Error::ReadOnly(
                "an earlier manifest write failed; reopen to recover".into(),
            ));
        }
        let edit = VersionEdit {
            next_file_number: Some(self.next_file_number.load(Ordering::SeqCst)),
            ..VersionEdit::default()
        };
        self.write_edit(&edit)
    }

    /// Appends `edit` to the manifest and syncs it, after checking that this process
    /// still holds the directory's lock.
    fn write_edit(&mut self, edit: &VersionEdit) -> Result<()> {
        if let Some(lock) = &self.lock
            && let Err(e) = check_lock(lock.as_ref(), &self.dir)
        {
            // IMPORTANT: another process may own the directory now; never write after it.
            self.failed = true;
            return Err(e);
        }
        let Some(manifest) = self.manifest.as_mut() else {
            return Err(Error::ReadOnly("opened read-only".into()));
        };
        let mut frame = Vec::new();
        put_frame(&mut frame, &edit.encode());
        // IMPORTANT: an edit is applied in memory only after it is durable; after a failed
        // write or sync the edit may still be in the file, so nothing may follow it.
        let written = manifest.append(&frame).and_then(|()| manifest.sync_data());
        if let Err(source) = written {
            self.failed = true;
            return Err(Error::Io {
                op: "write",
                path: file_path(&self.dir, FileType::Manifest, self.manifest_number),
                source,
            });
        }
        self.bytes_written += frame.len() as u64;
        Ok(())
    }

    /// Adds a newly created log file to the current version (in memory only: recovery
    /// finds log files in the directory).
    pub fn add_log_file(&mut self, file: Arc<ValueFile>) -> Result<Arc<Version>> {
        let mut state = self.current.state.clone();
        state.value_files.entry(file.number()).or_default();
        let next = Version::materialize(
            state,
            Some(&self.current),
            &[file],
            &self.fs,
            &self.dir,
            &self.cache,
        )?;
        self.current = Arc::new(next);
        Ok(Arc::clone(&self.current))
    }

    fn install(&mut self, next: Version) {
        self.current.retire_files_missing_from(&next);
        self.current = Arc::new(next);
    }

    /// Starts a new manifest holding a snapshot of the current state.
    fn roll_manifest(&mut self) -> Result<()> {
        let number = self.new_file_number();
        let (manifest, bytes) = write_new_manifest(
            self.fs.as_ref(),
            &self.dir,
            number,
            &self.current.state,
            self.next_file_number.load(Ordering::SeqCst),
        )?;
        let old = file_path(&self.dir, FileType::Manifest, self.manifest_number);
        self.manifest = Some(manifest);
        self.manifest_number = number;
        self.bytes_written += bytes;
        let _ = self.fs.remove_file(&old);
        Ok(())
    }
}

/// Writes manifest `number` with one snapshot edit, syncs it, and switches `CURRENT` to
/// it (temporary file, sync, rename, directory sync). Returns the open manifest.
pub(crate) fn write_new_manifest(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    state: &VersionState,
    next_file_number: u64,
) -> Result<(Box<dyn WritableFile>, u64)> {
    let path = file_path(dir, FileType::Manifest, number);
    let mut file = fs.create(&path).ctx("create", &path)?;
    let mut snapshot = state.snapshot();
    snapshot.next_file_number = Some(next_file_number);
    let mut bytes = encode_header(FileKind::Manifest, number).to_vec();
    put_frame(&mut bytes, &snapshot.encode());
    file.append(&bytes).ctx("append", &path)?;
    file.sync_data().ctx("sync", &path)?;
    // IMPORTANT: the manifest's directory entry is made durable together with the rename
    // of CURRENT, by one directory sync.
    write_current(fs, dir, number)?;
    Ok((file, bytes.len() as u64))
}

/// Points `CURRENT` at manifest `number`, durably: a temporary file, synced, renamed over
/// `CURRENT`, then the directory synced.
pub(crate) fn write_current(fs: &dyn Fs, dir: &Path, number: u64) -> Result<()> {
    let tmp = dir.join("CURRENT.tmp");
    let mut t = fs.create(&tmp).ctx("create", &tmp)?;
    t.append(current_contents(number).as_bytes())
        .ctx("append", &tmp)?;
    t.sync_data().ctx("sync", &tmp)?;
    drop(t);
    let current = current_path(dir);
    fs.rename(&tmp, &current).ctx("rename", &tmp)?;
    // IMPORTANT: the rename of CURRENT is durable only after the directory sync.
    fs.sync_dir(dir).ctx("sync directory", dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::manifest::DropDelta;
    use crate::fs::MemFs;

    #[test]
    fn drops_for_a_deleted_value_file_do_not_bring_it_back() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let cache = Arc::new(BlockCache::new(1 << 20));
        let lock: Arc<dyn FileLock> = Arc::from(fs.lock(&lock_path(dir)).unwrap());
        let state = VersionState::empty(3);
        let mut set = VersionSet::open(Arc::clone(&fs), dir, cache, state, &[], lock).unwrap();
        let number = set.new_file_number();
        let file = Arc::new(ValueFile::new(Arc::clone(&fs), dir, number));
        set.add_log_file(file).unwrap();
        set.log_and_apply(VersionEdit {
            deleted_value_files: vec![number],
            ..VersionEdit::default()
        })
        .unwrap();
        // A compaction that started before the deletion brings drops for the file.
        let drops = VersionEdit {
            value_file_drops: vec![DropDelta {
                number,
                epoch: 0,
                count: 3,
                bytes: 300,
            }],
            ..VersionEdit::default()
        };
        let version = set.log_and_apply(drops).unwrap();
        assert!(!version.state.value_files.contains_key(&number));
        let (replayed, _) = read_manifest(fs.as_ref(), dir, 3).unwrap();
        assert!(!replayed.value_files.contains_key(&number));
    }
}

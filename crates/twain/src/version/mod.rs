//! Versions: immutable snapshots of the database's files, shared with readers as `Arc`s,
//! and the version set that logs their edits to the manifest.

mod set;
mod state;

pub use set::VersionSet;
pub(crate) use set::{
    TornTail, check_lock, read_manifest, read_manifest_file, read_manifest_with_tail,
    write_current, write_new_manifest,
};
pub use state::{ValueFileState, VersionState};

use crate::Result;
use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::manifest::TableRecord;
use crate::format::names::{FileType, file_path};
use crate::fs::Fs;
use crate::key::user_key;
use crate::table::Table;
use crate::vlog::ValueFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// An open SSTable of some version. Deleted from disk when it is obsolete and the last
/// version or iterator holding it lets go. Thread-safe.
pub struct TableFile {
    /// How the manifest describes it.
    pub record: TableRecord,
    /// The open table.
    pub table: Arc<Table>,
    path: PathBuf,
    fs: Arc<dyn Fs>,
    obsolete: AtomicBool,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFile")
            .field("number", &self.record.number)
            .field("level", &self.record.level)
            .field("size", &self.record.file_size)
            .finish()
    }
}

impl TableFile {
    /// Opens table `record` of directory `dir`.
    pub fn open(
        fs: &Arc<dyn Fs>,
        dir: &Path,
        record: TableRecord,
        cache: &Arc<BlockCache>,
    ) -> Result<TableFile> {
        let path = file_path(dir, FileType::Table, record.number);
        let reader = fs.open_read(&path).ctx("open", &path)?;
        let size = reader.len().ctx("stat", &path)?;
        if size != record.file_size {
            return Err(crate::Error::corruption(
                &path,
                size.min(record.file_size),
                format!(
                    "table file has {size} bytes, the manifest records {}",
                    record.file_size
                ),
            ));
        }

        let table = Table::open(
            record.number,
            path.clone(),
            reader,
            record.file_size,
            Arc::clone(cache),
        )?;
        Ok(TableFile {
            record,
            table: Arc::new(table),
            path,
            fs: Arc::clone(fs),
            obsolete: AtomicBool::new(false),
        })
    }

    /// The table's file number.
    pub fn number(&self) -> u64 {
        self.record.number
    }

    /// Smallest user key.
    pub fn smallest_user_key(&self) -> &[u8] {
        user_key(&self.record.smallest)
    }

    /// Largest user key.
    pub fn largest_user_key(&self) -> &[u8] {
        user_key(&self.record.largest)
    }

    fn mark_obsolete(&self) {
        self.obsolete.store(true, Ordering::Release);
    }
}

impl Drop for TableFile {
    fn drop(&mut self) {
        if self.obsolete.load(Ordering::Acquire) {
            // No version names this table any more; a leftover is removed on next open.
            let _ = self.fs.remove_file(&self.path);
        }
    }
}

/// One immutable version: its state plus the open tables and value files it names.
/// Shared by readers as `Arc<Version>`; holding one keeps its files on disk.
#[derive(Debug)]
pub struct Version {
    /// The files and counters.
    pub state: VersionState,
    /// Open tables per level, in the order of `state.levels`.
    pub levels: Vec<Vec<Arc<TableFile>>>,
    /// Every value file the state names.
    pub value_files: HashMap<u64, Arc<ValueFile>>,
    /// Shared by consecutive versions with the same punched runs; a version whose runs
    /// differ from its predecessor's gets a new one. Value GC punches a file's new runs
    /// only once nothing but GC holds the guard of the versions before their edit: a
    /// reader of such a version might still follow a handle into a record the runs hold
    /// (`db::punch`).
    pub(crate) punch_guard: Arc<PunchGuard>,
    /// Hash layout: each group's main and cold segments (`VersionState::hash_chains`).
    hash_chains: std::collections::BTreeMap<u32, Vec<u64>>,
}

/// The token behind [`Version::punch_guard`].
#[derive(Debug, Default)]
pub(crate) struct PunchGuard;

impl Version {
    /// Builds the version of `state`, reusing the open files of `prev` and opening the
    /// rest (`new_value_files` supplies value files created by the writer).
    pub(crate) fn materialize(
        state: VersionState,
        prev: Option<&Version>,
        new_value_files: &[Arc<ValueFile>],
        fs: &Arc<dyn Fs>,
        dir: &Path,
        cache: &Arc<BlockCache>,
    ) -> Result<Version> {
        let prev_tables: HashMap<u64, &Arc<TableFile>> = prev
            .map(|p| p.levels.iter().flatten().map(|t| (t.number(), t)).collect())
            .unwrap_or_default();
        let mut levels = Vec::with_capacity(state.levels.len());
        for records in &state.levels {
            let mut files = Vec::with_capacity(records.len());
            for r in records {
                let file = match prev_tables.get(&r.number) {
                    Some(t) if t.record.level == r.level => Arc::clone(t),
                    // A table moved to another level keeps its file; only the record changes.
                    Some(t) => Arc::new(TableFile {
                        record: r.clone(),
                        table: Arc::clone(&t.table),
                        path: t.path.clone(),
                        fs: Arc::clone(fs),
                        obsolete: AtomicBool::new(false),
                    }),
                    None => Arc::new(TableFile::open(fs, dir, r.clone(), cache)?),
                };
                files.push(file);
            }
            levels.push(files);
        }
        let mut value_files = HashMap::with_capacity(state.value_files.len());
        for (&number, vstate) in &state.value_files {
            let epoch = vstate.sealed.map_or(0, |s| s.epoch);
            let file = prev
                .and_then(|p| p.value_files.get(&number).cloned())
                .filter(|f| f.epoch() == epoch)
                .or_else(|| {
                    new_value_files
                        .iter()
                        .find(|f| f.number() == number && f.epoch() == epoch)
                        .cloned()
                })
                .unwrap_or_else(|| {
                    Arc::new(ValueFile::with_epoch(Arc::clone(fs), dir, number, epoch))
                });
            if let Some(s) = vstate.sealed {
                file.set_counts(s.total_bytes, s.separated_bytes, s.separated_count);
            }
            value_files.insert(number, file);
        }
        let punch_guard = prev
            .filter(|p| p.state.punched == state.punched)
            .map_or_else(Default::default, |p| Arc::clone(&p.punch_guard));
        let hash_chains = state.hash_chains();
        Ok(Version {
            state,
            levels,
            value_files,
            punch_guard,
            hash_chains,
        })
    }

    /// Marks the files of `self` that `next` no longer names as obsolete, so they are
    /// deleted when the last holder lets go. Call only after `next` is durable.
    pub(crate) fn retire_files_missing_from(&self, next: &Version) {
        let keep: std::collections::HashSet<u64> =
            next.levels.iter().flatten().map(|t| t.number()).collect();
        for t in self.levels.iter().flatten() {
            if !keep.contains(&t.number()) {
                t.mark_obsolete();
            }
        }
        for (n, f) in &self.value_files {
            if next
                .value_files
                .get(n)
                .is_none_or(|g| g.epoch() != f.epoch())
            {
                f.mark_obsolete();
            }
        }
    }

    /// Hash layout: the main segment of `key`'s group, then its cold segments newest
    /// first: where a handle naming a segment that group GC merged away, or a record that
    /// it moved to a cold segment, is found (by key and sequence). Empty in the log layout
    /// or before the group's first GC.
    pub fn hash_chain(&self, key: &[u8]) -> Vec<Arc<ValueFile>> {
        let Some(groups) = self.state.hash_groups else {
            return Vec::new();
        };
        self.hash_chains
            .get(&crate::hash_layout::group_of(key, groups))
            .map(|chain| {
                chain
                    .iter()
                    .filter_map(|n| self.value_files.get(n).cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Number of tables in a level.
    pub fn num_level_files(&self, level: usize) -> usize {
        self.levels.get(level).map_or(0, Vec::len)
    }

    /// The tables of a level whose user-key range intersects `[lo, hi]`.
    pub fn overlapping(&self, level: usize, lo: &[u8], hi: &[u8]) -> Vec<Arc<TableFile>> {
        self.levels
            .get(level)
            .map(|files| {
                files
                    .iter()
                    .filter(|t| t.largest_user_key() >= lo && t.smallest_user_key() <= hi)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The table of sorted level `level` (>= 1) that may hold `key`.
    pub fn table_for_key(&self, level: usize, key: &[u8]) -> Option<&Arc<TableFile>> {
        let files = self.levels.get(level)?;
        let idx = files.partition_point(|t| t.largest_user_key() < key);
        files.get(idx).filter(|t| t.smallest_user_key() <= key)
    }
}
